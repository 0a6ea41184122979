/**
 * Compare: one prompt, two different versions side by side; the verdict (A or B is better, about
 * the same, both bad) is recorded as feedback.
 */
import { useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import type { CheckpointInfo } from '../api/contract.js';
import { ErrorText } from '../ui/ErrorText.js';
import { Markdown } from '../ui/Markdown.js';
import { bothComplete, identicalAnswers, sameVersion, type CompareAnswer, type Side } from './compareStore.js';

function options(rows: CheckpointInfo[]) {
  return [
    { value: 'live', label: 'Live version' },
    { value: 'base', label: 'v0 (base model)' },
    ...rows.map((r) => ({ value: r.id, label: `v${r.adapter_version} (step ${r.step})` })),
  ];
}

/** `canPick`: both answers are complete (an answer is recorded, and can be rated, once it has ended) and differ. */
function Answer({ side, a, picked, canPick }: { side: Side; a: CompareAnswer; picked: boolean; canPick: boolean }) {
  const { compare } = useServices();
  return (
    <section aria-label={`Answer ${side.toUpperCase()}`} className={picked ? 'picked' : undefined}>
      <h3>
        {side.toUpperCase()} · {a.version === null ? '…' : `v${a.version}`}
      </h3>
      <Markdown text={a.content || (a.streaming ? '…' : '')} />
      <ErrorText>{a.error}</ErrorText>
      <button type="button" className="btn btn-small" disabled={!canPick} onClick={() => void compare.getState().pick(side)}>
        {side.toUpperCase()} is better
      </button>
    </section>
  );
}

/** The verdicts that need no winner: about the same (nothing trains), both bad (👎 on both). */
function NoWinner({ answers }: { answers: Record<Side, CompareAnswer> }) {
  const { compare } = useServices();
  const picked = useStore(compare, (s) => s.picked);
  const complete = bothComplete(answers);
  return (
    <div className="row">
      {complete && identicalAnswers(answers) && <p className="muted">The two answers are the same text: neither can be better.</p>}
      <button
        type="button"
        className="btn btn-small"
        aria-pressed={picked === 'same'}
        disabled={!complete}
        onClick={() => void compare.getState().pick('same')}
      >
        About the same
      </button>
      <button
        type="button"
        className="btn btn-small"
        aria-pressed={picked === 'both_bad'}
        disabled={!complete}
        onClick={() => void compare.getState().pick('both_bad')}
      >
        Both bad
      </button>
    </div>
  );
}

function VersionSelect({
  label,
  value,
  onChange,
  rows,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  rows: CheckpointInfo[];
}) {
  return (
    <label>
      {label}{' '}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {options(rows).map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The two versions and the prompt; Ask both, and Close. */
function CompareForm({ first, rows, close }: { first: string; rows: CheckpointInfo[]; close: () => void }) {
  const { compare, checkpoints } = useServices();
  const prompt = useStore(compare, (s) => s.prompt);
  const running = useStore(compare, (s) => s.running);
  const liveId = useStore(checkpoints, (s) => s.liveId);
  const [a, setA] = useState(first);
  const [b, setB] = useState(first === (liveId ?? 'base') ? 'base' : 'live');
  const same = sameVersion(a, b, liveId);
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        if (!same) void compare.getState().run(a, b);
      }}
    >
      <VersionSelect label="A" value={a} onChange={setA} rows={rows} />
      <VersionSelect label="B" value={b} onChange={setB} rows={rows} />
      <label className="visually-hidden" htmlFor="compare-prompt">
        Prompt
      </label>
      <input
        id="compare-prompt"
        className="grow"
        placeholder="A prompt for both versions"
        value={prompt}
        onChange={(e) => compare.getState().setPrompt(e.target.value)}
      />
      <button
        type="submit"
        className="btn btn-primary"
        disabled={running || !prompt.trim() || same}
        aria-describedby={same ? 'compare-same' : undefined}
      >
        Ask both
      </button>
      <button
        type="button"
        className="btn"
        onClick={() => {
          compare.getState().reset();
          close();
        }}
      >
        Close
      </button>
      {same && (
        <p id="compare-same" className="muted">
          A and B are the same version: choose two different versions to compare.
        </p>
      )}
    </form>
  );
}

export function ComparePanel({ first, rows, close }: { first: string; rows: CheckpointInfo[]; close: () => void }) {
  const { compare } = useServices();
  const answers = useStore(compare, (s) => s.answers);
  const picked = useStore(compare, (s) => s.picked);
  const message = useStore(compare, (s) => s.pickMessage);
  const canPick = !!answers && bothComplete(answers) && !identicalAnswers(answers);
  return (
    <section className="card compare" aria-labelledby="compare-title">
      <h2 id="compare-title">Compare two versions</h2>
      <CompareForm first={first} rows={rows} close={close} />
      {answers && (
        <div className="compare-answers">
          <Answer side="a" a={answers.a} picked={picked === 'a'} canPick={canPick} />
          <Answer side="b" a={answers.b} picked={picked === 'b'} canPick={canPick} />
        </div>
      )}
      {answers && <NoWinner answers={answers} />}
      {message && <p role="status">{message}</p>}
    </section>
  );
}
