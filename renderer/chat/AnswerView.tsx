/**
 * One answer: labelled with the adapter version that wrote it, its reasoning collapsed, the text as
 * Markdown, and — once recorded — 👍, 👎, Add hint, Ask again, Regenerate (the last answer) and
 * Roll back to before this (once trained on), with the receipt of its feedback underneath.
 */
import { useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { ConfirmDialog } from '../ui/ConfirmDialog.js';
import { ErrorText } from '../ui/ErrorText.js';
import { Markdown } from '../ui/Markdown.js';
import { version } from '../ui/format.js';
import { HintForm } from './HintForm.js';
import { Receipt } from './Receipt.js';
import type { AnswerItem } from './thread.js';

function AnswerBody({ item, heading }: { item: AnswerItem; heading?: string }) {
  return (
    <div className="answer-body">
      <div className="answer-meta">
        {heading && <span className="answer-heading">{heading}</span>}
        <span className="badge" title="The adapter version that wrote this answer (v0 is the base model)">
          {item.version === null ? '…' : version(item.version)}
        </span>
        {item.streaming && <span className="muted">writing…</span>}
        {item.finishReason === 'abort' && <span className="badge badge-warn">stopped</span>}
        {item.finishReason === 'length' && <span className="badge badge-warn">cut at the length limit</span>}
      </div>
      {item.reasoning && (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <p className="reasoning-text">{item.reasoning}</p>
        </details>
      )}
      <Markdown text={item.content} />
      <ErrorText>{item.error}</ErrorText>
    </div>
  );
}

function RollbackConfirm({ turnId, close }: { turnId: string; close: () => void }) {
  const { chat } = useServices();
  const [busy, setBusy] = useState(false);
  return (
    <ConfirmDialog
      title="Roll back to before this answer was learned?"
      confirmLabel="Roll back"
      busy={busy}
      onCancel={close}
      onConfirm={async () => {
        setBusy(true);
        await chat.getState().rollbackBefore(turnId);
        setBusy(false);
        close();
      }}
    >
      <p>The version from before the training step that used this answer becomes live now, as a new version. Later checkpoints stay in Checkpoints.</p>
    </ConfirmDialog>
  );
}

interface ActionsProps {
  item: AnswerItem;
  last: boolean;
  busy: boolean;
  hinting: boolean;
  toggleHint: () => void;
  confirmRollback: () => void;
}

/** 👍, 👎, Add hint, Ask again, Regenerate (the last answer), Roll back to before this (once trained on). */
function RecordedActions({ item, last, busy, hinting, toggleHint, confirmRollback }: ActionsProps) {
  const { chat } = useServices();
  const turn = useStore(chat, (s) => (item.turnId ? s.turns[item.turnId] : undefined));
  const rating = turn?.feedback?.rating ?? null;
  const rate = (r: 'up' | 'down') => void chat.getState().rate(item.turnId!, r);
  return (
    <div className="answer-actions row">
      <button type="button" className="btn btn-small" aria-label="Thumbs up" aria-pressed={rating === 'up'} onClick={() => rate('up')}>
        👍
      </button>
      <button type="button" className="btn btn-small" aria-label="Thumbs down" aria-pressed={rating === 'down'} onClick={() => rate('down')}>
        👎
      </button>
      <button
        type="button"
        className="btn btn-small"
        aria-expanded={hinting}
        disabled={turn?.receipt.feedback_open === false}
        title={turn?.receipt.feedback_open === false ? 'A training step took this answer: its feedback can no longer change' : undefined}
        onClick={toggleHint}
      >
        Add hint
      </button>
      <button type="button" className="btn btn-small" disabled={busy} onClick={() => void chat.getState().askAgain(item.key)}>
        Ask again
      </button>
      {last && <RegenerateButton busy={busy} />}
      {!!turn?.receipt?.checkpoint_id && (
        <button type="button" className="btn btn-small btn-danger" onClick={confirmRollback}>
          Roll back to before this
        </button>
      )}
    </div>
  );
}

function RegenerateButton({ busy }: { busy: boolean }) {
  const { chat } = useServices();
  return (
    <button type="button" className="btn btn-small" disabled={busy} onClick={() => void chat.getState().regenerate()}>
      Regenerate
    </button>
  );
}

export function AnswerView({ item, last, busy }: { item: AnswerItem; last: boolean; busy: boolean }) {
  const { chat } = useServices();
  const turn = useStore(chat, (s) => (item.turnId ? s.turns[item.turnId] : undefined));
  const error = useStore(chat, (s) => (item.turnId ? s.actionErrors[item.turnId] : undefined));
  const [hinting, setHinting] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const recorded = !!item.turnId && !item.streaming && !item.error;

  return (
    <article className="message message-answer" aria-label={`Answer from ${item.version === null ? 'the model' : version(item.version)}`}>
      <div className={item.again ? 'answers-side-by-side' : undefined}>
        <AnswerBody item={item} heading={item.again ? 'First answer' : undefined} />
        {item.again && <AnswerBody item={item.again} heading="Asked again" />}
      </div>
      {recorded && (
        <RecordedActions item={item} last={last} busy={busy} hinting={hinting} toggleHint={() => setHinting((h) => !h)} confirmRollback={() => setConfirming(true)} />
      )}
      {!recorded && last && item.error && (
        <div className="answer-actions row">
          <RegenerateButton busy={busy} />
        </div>
      )}
      {hinting && item.turnId && <HintForm turnId={item.turnId} initial={turn?.feedback?.hint ?? ''} done={() => setHinting(false)} />}
      <ErrorText>{error}</ErrorText>
      {turn && <Receipt receipt={turn.receipt} feedback={turn.feedback} onRejectJudgeHint={() => void chat.getState().rejectJudgeHint(turn.id)} />}
      {confirming && item.turnId && <RollbackConfirm turnId={item.turnId} close={() => setConfirming(false)} />}
    </article>
  );
}
