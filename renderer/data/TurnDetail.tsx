/** One recorded turn: what was asked and answered, what followed, the judge's votes and the samples. */
import type { TurnView } from '../api/contract.js';
import { messageText } from '../chat/thread.js';
import { receiptText } from '../chat/Receipt.js';
import { useEffect, useRef } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { sessionName } from '../ui/sessionName.js';
import { dateTime, quote, signed } from '../ui/format.js';
import { verdictText, voteText } from './judgeText.js';
import { Markdown } from '../ui/Markdown.js';

const JUDGE_KIND: Record<TurnView['judgements'][number]['kind'], string> = { prm: 'Reward judge', hint: 'Hint judge' };
type Judgement = TurnView['judgements'][number];

/** What a judge wrote for one vote, folded away. */
function Written({ raw }: { raw: string }) {
  return (
    <details>
      <summary>What the judge wrote</summary>
      <p className="pre">{raw}</p>
    </details>
  );
}

/** Each vote as a line (one vote is the verdict itself: only what the judge wrote is added). */
function Votes({ judgement: j }: { judgement: Judgement }) {
  if (j.votes.length === 1) return j.votes[0].raw ? <Written raw={j.votes[0].raw} /> : null;
  return (
    <ol className="votes" aria-label={`${JUDGE_KIND[j.kind] ?? j.kind}'s votes`}>
      {j.votes.map((v, i) => (
        <li key={i}>
          {voteText(j.kind, v)}
          {v.raw && <Written raw={v.raw} />}
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
          {JUDGE_KIND[j.kind] ?? j.kind} ({j.judge}), {dateTime(j.created_at)}: {verdictText(j)}
          <Votes judgement={j} />
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

/** The words a person recognises the turn by: the start of its last user message (or tool result). */
function promptStart(turn: TurnView): string {
  const m = [...turn.messages].reverse().find((x) => x.role === 'user' || x.role === 'tool');
  const text = (m ? messageText(m) : '').replace(/\s+/g, ' ').trim();
  return text ? quote(text, 60) : 'A turn without a prompt';
}

export function TurnDetail({ turn, close }: { turn: TurnView; close: () => void }) {
  const { data } = useServices();
  const session = useStore(data, (s) => s.sessions.find((x) => x.id === turn.session_id));
  const box = useRef<HTMLElement>(null);
  // Opened from a row far down the list: brought into view, its heading focused for the keyboard.
  useEffect(() => {
    box.current?.scrollIntoView({ block: 'start' });
    box.current?.querySelector<HTMLElement>('h2')?.focus({ preventScroll: true });
  }, [turn.id]);
  return (
    <section ref={box} className="card turn-detail" aria-label="Turn detail">
      <div className="row spread">
        <h2 tabIndex={-1}>
          {promptStart(turn)} · {dateTime(turn.created_at)}
        </h2>
        <button type="button" className="btn btn-small" onClick={close}>
          Close
        </button>
      </div>
      <p className="muted">
        {turn.type} turn in {session ? quote(sessionName(session)) : turn.session_id ? quote(turn.session_id) : 'no session'} · answered by
        v{turn.adapter_version} · {turn.prompt_tokens} + {turn.completion_tokens} tokens · {turn.finish_reason}
      </p>
      <p className="muted ids">
        Turn id {turn.id}
        {turn.session_id ? ` · session id ${turn.session_id}` : ''}
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
