/** One recorded turn: what was asked and answered, what followed, the judge's votes and the samples. */
import type { TurnView } from '../api/contract.js';
import { messageText } from '../chat/thread.js';
import { receiptText } from '../chat/Receipt.js';
import { useEffect, useRef } from 'react';
import { dateTime, quote, signed } from '../ui/format.js';
import { Markdown } from '../ui/Markdown.js';

const JUDGE_KIND: Record<TurnView['judgements'][number]['kind'], string> = { prm: 'Reward judge', hint: 'Hint judge' };

/** Each vote as a line: its score and hint, with what the judge wrote folded away. */
function Votes({ votes }: { votes: TurnView['judgements'][number]['votes'] }) {
  return (
    <ol className="votes">
      {votes.map((v, i) => (
        <li key={i}>
          score {signed(v.score, 0)}
          {v.hint ? ` · hint ${quote(v.hint)}` : ''}
          {v.raw && (
            <details>
              <summary>What the judge wrote</summary>
              <p className="pre">{v.raw}</p>
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}

function Judgements({ turn }: { turn: TurnView }) {
  if (turn.judgements.length === 0) return <p>Not judged.</p>;
  return (
    <ul>
      {turn.judgements.map((j, i) => (
        <li key={i}>
          {JUDGE_KIND[j.kind] ?? j.kind} ({j.judge}), {dateTime(j.created_at)}: score {signed(j.score, 0)}
          {j.hint ? ` · hint ${quote(j.hint)}` : ''} · {j.votes.length} vote(s)
          <Votes votes={j.votes} />
        </li>
      ))}
    </ul>
  );
}

/** What a sample trains on, after its kind: the turn's answer says nothing more. */
const RESPONSE_LABEL: Record<TurnView['samples'][number]['response'], string> = {
  turn: '',
  teacher: " on the teacher's own answer",
  policy: ' on another answer of the policy',
};

function Samples({ turn }: { turn: TurnView }) {
  if (turn.samples.length === 0) return <p>{turn.learn_note ?? 'None.'}</p>;
  return (
    <ul>
      {turn.samples.map((s, i) => (
        <li key={i}>
          {s.kind}
          {RESPONSE_LABEL[s.response]}: {s.status}
          {s.step !== null ? ` in step ${s.step}` : ''}
          {s.reward !== null ? ` · reward ${signed(s.reward, 0)} (${s.reward_source ?? '—'})` : ''}
          {s.hint ? ` · hint (${s.hint_source}) ${quote(s.hint)}` : ''}
          {s.drop_reason ? ` · dropped: ${s.drop_reason}` : ''}
        </li>
      ))}
    </ul>
  );
}

function feedbackText(turn: TurnView): string {
  const fb = turn.feedback
    ? `${turn.feedback.rating ?? 'no rating'}${turn.feedback.hint ? ` · hint ${quote(turn.feedback.hint)}` : ''}`
    : 'None.';
  return fb + (turn.receipt && turn.receipt.stage !== 'none' ? ` · ${receiptText(turn.receipt)}` : '');
}

export function TurnDetail({ turn, close }: { turn: TurnView; close: () => void }) {
  const box = useRef<HTMLElement>(null);
  // Opened from a row far down the list: brought into view, its heading focused for the keyboard.
  useEffect(() => {
    box.current?.scrollIntoView({ block: 'start' });
    box.current?.querySelector<HTMLElement>('h2')?.focus({ preventScroll: true });
  }, [turn.id]);
  return (
    <section ref={box} className="card turn-detail" aria-labelledby="turn-title">
      <div className="row spread">
        <h2 id="turn-title" tabIndex={-1}>
          Turn {turn.id}
        </h2>
        <button type="button" className="btn btn-small" onClick={close}>
          Close
        </button>
      </div>
      <p className="muted">
        {turn.type} turn · session {turn.session_id ?? '—'} · {dateTime(turn.created_at)} · answered by v{turn.adapter_version} ·{' '}
        {turn.prompt_tokens} + {turn.completion_tokens} tokens · {turn.finish_reason}
      </p>
      <h3>Prompt</h3>
      <ol className="turn-messages">
        {turn.messages.map((m, i) => (
          <li key={i}>
            <strong>{m.role}:</strong> <span className="pre">{messageText(m)}</span>
          </li>
        ))}
      </ol>
      <h3>Answer</h3>
      <Markdown text={turn.response} />
      <h3>Next state</h3>
      <p className="pre">{turn.next_state ? `${turn.next_state.role}: ${turn.next_state.text}` : 'None yet.'}</p>
      <h3>Feedback</h3>
      <p>{feedbackText(turn)}</p>
      <h3>Judge</h3>
      <Judgements turn={turn} />
      <h3>Samples</h3>
      <Samples turn={turn} />
    </section>
  );
}
