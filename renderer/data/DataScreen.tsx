/** Data: recorded sessions and turns, filtered; a turn in detail; delete a session; export JSONL. */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import type { SessionInfo, TurnView } from '../api/contract.js';
import { ConfirmDialog } from '../ui/ConfirmDialog.js';
import { ErrorText } from '../ui/ErrorText.js';
import { EmptyState } from '../ui/EmptyState.js';
import { dateTime, signed, when } from '../ui/format.js';
import { Markdown } from '../ui/Markdown.js';
import { sessionName, UNATTACHED_SESSION } from '../ui/sessionName.js';
import { TableHead } from '../ui/TableHead.js';
import { messageText } from '../chat/thread.js';
import { DataFilters } from './DataFilters.js';
import { EMPTY_FILTER } from './dataStore.js';
import { TurnDetail } from './TurnDetail.js';
import './data.css';

const clip = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const lastUser = (t: TurnView) => {
  const m = [...t.messages].reverse().find((x) => x.role === 'user' || x.role === 'tool');
  return m ? messageText(m) : '';
};
const reward = (t: TurnView) => t.receipt?.score ?? t.samples.find((s) => s.reward !== null)?.reward ?? null;
const rating = (t: TurnView) =>
  (t.feedback?.rating === 'up' ? '👍' : t.feedback?.rating === 'down' ? '👎' : '') + (t.feedback?.hint ? ' hint' : '');

function download(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function Sessions() {
  const { data } = useServices();
  const sessions = useStore(data, (s) => s.sessions);
  const message = useStore(data, (s) => s.sessionMessage);
  const [deleting, setDeleting] = useState<SessionInfo | null>(null);
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      {message && <p role="status">{message}</p>}
      {sessions.length === 0 && (
        <p className="muted">None yet: each conversation in Chat, and each client that sends a session id, is one.</p>
      )}
      <ul className="session-list">
        {sessions.map((s) => (
          <li key={s.id} className="row">
            <button type="button" className="link-button session-name" onClick={() => data.getState().setFilter({ sessionId: s.id })}>
              {sessionName(s)}
            </button>
            <span className="muted">
              {s.turns ?? '?'} turn(s) · {when(s.last_seen_at ?? s.created_at)}
              {s.ended_at ? ' · ended' : ''}
              {s.id !== UNATTACHED_SESSION && sessionName(s) !== s.id ? ` · id ${s.id}` : ''}
            </span>
            {s.id !== UNATTACHED_SESSION && (
              <button
                type="button"
                className="btn btn-small"
                aria-label={`Delete session ${sessionName(s)}`}
                onClick={() => setDeleting(s)}
              >
                Delete session
              </button>
            )}
          </li>
        ))}
      </ul>
      {deleting && (
        <ConfirmDialog
          title="Delete this session?"
          confirmLabel="Delete session"
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            void data.getState().deleteSession(deleting.id);
            setDeleting(null);
          }}
        >
          <p>Its turns and the samples not trained yet are removed. Adapters already trained on it keep what they learned.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

const TURN_COLUMNS = ['Time', 'Prompt', 'Answer', 'Feedback', 'Reward', 'Stage'] as const;

const stage = (t: TurnView) =>
  t.receipt?.stage && t.receipt.stage !== 'none' ? t.receipt.stage.replace('_', ' ') : t.type === 'main' ? '—' : t.type;

function TurnRow({ turn: t, selected }: { turn: TurnView; selected: boolean }) {
  const { data } = useServices();
  return (
    <tr aria-selected={selected}>
      <td>{dateTime(t.created_at)}</td>
      <td>
        <button type="button" className="link-button" onClick={() => void data.getState().open(t.id)}>
          {clip(lastUser(t)) || '(no prompt)'}
        </button>
      </td>
      <td className="answer-preview">
        <Markdown text={t.response} />
      </td>
      <td>{rating(t)}</td>
      <td>{signed(reward(t), 0)}</td>
      <td>{stage(t)}</td>
    </tr>
  );
}

/** No turns: none recorded yet (what to do to get some), or none the filters let through. */
function NoTurns() {
  const { data } = useServices();
  const filtered = useStore(data, (s) => JSON.stringify(s.filter) !== JSON.stringify(EMPTY_FILTER));
  if (filtered)
    return <EmptyState title="No turns match these filters.">Widen them, or choose “All sessions” and “Any” to see every turn.</EmptyState>;
  return (
    <EmptyState title="No turns yet: ask something in Chat.">
      Every answer the model gives, in Chat or to a client connected through Connect, is recorded here as a turn, with its rating, hint, the
      judge's verdict and the training step that used it.
    </EmptyState>
  );
}

function TurnsTable({ selectedId }: { selectedId: string | null }) {
  const { data } = useServices();
  const turns = useStore(data, (s) => s.turns);
  const hasMore = useStore(data, (s) => s.hasMore);
  const loading = useStore(data, (s) => s.loading);
  const loaded = useStore(data, (s) => !s.loading && s.error === null);
  if (loaded && turns.length === 0) return <NoTurns />;
  return (
    <table className="turns-table">
      <caption>{loading ? 'Loading…' : `${turns.length} turn(s)${hasMore ? ' (more below)' : ''}, newest first`}</caption>
      <TableHead columns={TURN_COLUMNS} />
      <tbody>
        {turns.map((t) => (
          <TurnRow key={t.id} turn={t} selected={selectedId === t.id} />
        ))}
      </tbody>
    </table>
  );
}

function ExportButton() {
  const { data } = useServices();
  return (
    <button
      type="button"
      className="btn"
      onClick={async () => {
        const blob = await data.getState().exportAll();
        if (blob) download(blob, 'clawloop-sessions.jsonl');
      }}
    >
      Export JSONL
    </button>
  );
}

function LoadMore() {
  const { data } = useServices();
  const hasMore = useStore(data, (s) => s.hasMore);
  const loading = useStore(data, (s) => s.loading);
  if (!hasMore) return null;
  return (
    <button type="button" className="btn" disabled={loading} onClick={() => void data.getState().more()}>
      Load more
    </button>
  );
}

export function DataScreen() {
  const { data } = useServices();
  const error = useStore(data, (s) => s.error);
  const selected = useStore(data, (s) => s.selected);
  useEffect(() => void data.getState().load(), [data]);

  return (
    <div>
      <div className="row spread">
        <h1>Data</h1>
        <ExportButton />
      </div>
      <DataFilters />
      <ErrorText>{error}</ErrorText>
      {/* The detail above the list, full width: in view wherever its row was, and the table keeps its width. */}
      {selected && <TurnDetail turn={selected} close={() => data.getState().close()} />}
      <TurnsTable selectedId={selected?.id ?? null} />
      <LoadMore />
      <Sessions />
    </div>
  );
}
