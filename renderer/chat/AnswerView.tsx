/**
 * One answer: labelled with the adapter version that wrote it, its reasoning collapsed, the text as
 * Markdown, the earlier answers Regenerate replaced (1/2 ‹ ›), and — once recorded — 👍, 👎, Add
 * hint, Ask again, Regenerate (the last answer) and Roll back to before this (while what it taught is live),
 * with the receipt of its feedback underneath.
 */
import { useRef, useState, type RefObject } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { CopyButton } from '../ui/CopyButton.js';
import { ErrorText } from '../ui/ErrorText.js';
import { Markdown } from '../ui/Markdown.js';
import { version } from '../ui/format.js';
import { HintForm } from './HintForm.js';
import { Receipt } from './Receipt.js';
import { RollbackBeforeDialog } from './RollbackBeforeDialog.js';
import { SideTurnView } from './SideTurnView.js';
import { ToolCallView } from './ToolCallView.js';
import { COMPOSER_ID, focusById } from './useChatShortcuts.js';
import type { AnswerItem } from './thread.js';

/** The version badge: the adapter that wrote it; "…" only while the core has not said yet. */
function VersionBadge({ item }: { item: AnswerItem }) {
  if (item.unrecorded)
    return (
      <span
        className="badge"
        title="This answer is in the conversation's history, but ClawLoop has no record of writing it (another model wrote it, or the client changed it)"
      >
        not recorded
      </span>
    );
  return (
    <span className="badge" title="The adapter version that wrote this answer (v0 is the base model)">
      {item.version === null ? '…' : version(item.version)}
    </span>
  );
}

/** "24 tokens · 3.1 s · 7.7 tokens/s": the answer's length and how fast it came (prompt reading included). */
function Speed({ turnId }: { turnId: string | null }) {
  const { chat } = useServices();
  const turn = useStore(chat, (s) => (turnId ? s.turns[turnId] : undefined));
  if (!turn || !turn.completion_tokens) return null;
  const seconds = Math.max(turn.completed_at - turn.created_at, 1) / 1000;
  return (
    <span
      className="muted"
      title={`${turn.prompt_tokens} prompt tokens read, ${turn.completion_tokens} written; the time includes reading the prompt`}
    >
      {turn.completion_tokens} tokens · {seconds.toFixed(1)} s · {(turn.completion_tokens / seconds).toFixed(1)} tokens/s
    </span>
  );
}

function AnswerBody({ item, heading }: { item: AnswerItem; heading?: string }) {
  return (
    <div className="answer-body">
      <div className="answer-meta">
        {heading && <span className="answer-heading">{heading}</span>}
        <VersionBadge item={item} />
        {item.streaming && <span className="muted">writing…</span>}
        <Speed turnId={item.turnId} />
        {item.finishReason === 'abort' && <span className="badge badge-warn">stopped</span>}
        {item.finishReason === 'length' && <span className="badge badge-warn">cut at the length limit</span>}
      </div>
      {item.reasoning && (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <p className="reasoning-text">{item.reasoning}</p>
        </details>
      )}
      {(item.content || !item.toolCalls?.length) && <Markdown text={item.content} />}
      {item.toolCalls?.map((c) => (
        <ToolCallView key={c.id} call={c} />
      ))}
      <ErrorText>{item.error}</ErrorText>
    </div>
  );
}

interface ActionsProps {
  item: AnswerItem;
  last: boolean;
  busy: boolean;
  hinting: boolean;
  toggleHint: () => void;
  confirmRollback: () => void;
  /** Where the focus goes back to when the hint form closes. */
  hintButton: RefObject<HTMLButtonElement | null>;
}

/** 👍, 👎, Add hint, Ask again, Regenerate (the last answer), Roll back to before this (while what it taught is live). */
function RecordedActions({ item, last, busy, hinting, toggleHint, confirmRollback, hintButton }: ActionsProps) {
  const { chat } = useServices();
  const turn = useStore(chat, (s) => (item.turnId ? s.turns[item.turnId] : undefined));
  const rating = turn?.feedback?.rating ?? null;
  const feedbackClosed = turn?.receipt.feedback_open === false;
  const rate = (r: 'up' | 'down') => void chat.getState().rate(item.turnId!, r);
  return (
    <div className="answer-actions row">
      <button type="button" className="btn btn-small" aria-label="Thumbs up" aria-pressed={rating === 'up'} onClick={() => rate('up')}>
        👍
      </button>
      <button
        type="button"
        className="btn btn-small"
        aria-label="Thumbs down"
        aria-pressed={rating === 'down'}
        onClick={() => rate('down')}
      >
        👎
      </button>
      <CopyButton text={item.content} label="Copy answer" />
      <button
        type="button"
        className="btn btn-small"
        aria-expanded={hinting}
        // aria-disabled, not disabled: the focus comes back here after a hint, when a step may just have taken the answer.
        aria-disabled={feedbackClosed}
        title={feedbackClosed ? 'A training step took this answer: its feedback can no longer change' : undefined}
        onClick={() => (feedbackClosed && !hinting ? undefined : toggleHint())}
        ref={hintButton}
      >
        Add hint
      </button>
      {/* aria-disabled, not disabled: a disabled button drops the keyboard focus while the answer is written. */}
      <button type="button" className="btn btn-small" aria-disabled={busy} onClick={() => !busy && void chat.getState().askAgain(item.key)}>
        Ask again
      </button>
      {last && <RegenerateButton busy={busy} />}
      {/* Only while what it taught is live: otherwise going back to before it would change nothing live. */}
      {turn?.receipt.stage === 'live' && !!turn.receipt.checkpoint_id && (
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
    <button
      type="button"
      className="btn btn-small"
      disabled={busy}
      onClick={() => {
        void chat.getState().regenerate();
        focusById(COMPOSER_ID); // this answer, and the button with it, is replaced
      }}
    >
      Regenerate
    </button>
  );
}

/** Ids that survive the switch (another answer is drawn in this place): the focus stays on the arrow pressed. */
const PREVIOUS_ID = 'answer-previous';
const NEXT_ID = 'answer-next';

/** "‹ 2/3 ›": which of the answers Regenerate wrote to this message is shown; the conversation goes on from it. */
function AlternativeSwitch({ item, busy }: { item: AnswerItem; busy: boolean }) {
  const { chat } = useServices();
  const n = item.alternatives?.length ?? 0;
  if (n < 2) return null;
  const at = item.alternativeIndex ?? n - 1;
  const show = (index: number, id: string) => {
    if (busy || index < 0 || index >= n) return;
    chat.getState().showAlternative(item.key, index);
    focusById(id);
  };
  // aria-disabled, not disabled: the focus stays on an arrow that reached the end.
  return (
    <div className="row alternatives" role="group" aria-label="Answers to this message">
      <button
        type="button"
        id={PREVIOUS_ID}
        className="btn btn-small"
        aria-label="Previous answer"
        aria-disabled={busy || at === 0}
        onClick={() => show(at - 1, PREVIOUS_ID)}
      >
        ‹
      </button>
      <span aria-live="polite" title="Regenerate keeps the answers it replaced; the conversation goes on from the one shown">
        {at + 1}/{n}
      </span>
      <button
        type="button"
        id={NEXT_ID}
        className="btn btn-small"
        aria-label="Next answer"
        aria-disabled={busy || at === n - 1}
        onClick={() => show(at + 1, NEXT_ID)}
      >
        ›
      </button>
    </div>
  );
}

export function AnswerView({ item, last, busy }: { item: AnswerItem; last: boolean; busy: boolean }) {
  if (item.side) return <SideTurnView item={item} side={item.side} body={<AnswerBody item={item} />} />;
  return <MainAnswerView item={item} last={last} busy={busy} />;
}

function MainAnswerView({ item, last, busy }: { item: AnswerItem; last: boolean; busy: boolean }) {
  const { chat } = useServices();
  const turn = useStore(chat, (s) => (item.turnId ? s.turns[item.turnId] : undefined));
  const error = useStore(chat, (s) => (item.turnId ? s.actionErrors[item.turnId] : undefined));
  const [hinting, setHinting] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const hintButton = useRef<HTMLButtonElement>(null);
  const closeHint = () => {
    setHinting(false);
    hintButton.current?.focus(); // the form that had the focus is gone: back to where it opened from
  };
  const recorded = !!item.turnId && !item.streaming && !item.error;

  return (
    <article className="message message-answer" aria-label={`Answer from ${item.version === null ? 'the model' : version(item.version)}`}>
      <div className={item.again ? 'answers-side-by-side' : undefined}>
        <AnswerBody item={item} heading={item.again ? 'First answer' : undefined} />
        {item.again && <AnswerBody item={item.again} heading="Asked again" />}
      </div>
      <AlternativeSwitch item={item} busy={busy} />
      {recorded && (
        <RecordedActions
          item={item}
          last={last}
          busy={busy}
          hinting={hinting}
          toggleHint={() => setHinting((h) => !h)}
          confirmRollback={() => setConfirming(true)}
          hintButton={hintButton}
        />
      )}
      {!recorded && last && item.error && (
        <div className="answer-actions row">
          <RegenerateButton busy={busy} />
        </div>
      )}
      {hinting && item.turnId && <HintForm turnId={item.turnId} initial={turn?.feedback?.hint ?? ''} done={closeHint} />}
      <ErrorText>{error}</ErrorText>
      {turn && (
        <Receipt receipt={turn.receipt} feedback={turn.feedback} onRejectJudgeHint={() => void chat.getState().rejectJudgeHint(turn.id)} />
      )}
      {confirming && item.turnId && <RollbackBeforeDialog turnId={item.turnId} close={() => setConfirming(false)} />}
    </article>
  );
}
