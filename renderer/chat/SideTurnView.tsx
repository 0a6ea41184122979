/**
 * A side turn in the thread: a request the client made beside the conversation (OpenClaw's
 * compaction summaries, titles, heartbeats; a request without a session). Marked as such: it was
 * served and is kept under Data, but never trained on.
 */
import type { ReactNode } from 'react';
import { stripEnvelope } from '../../main/protocol/messageEnvelope.js';
import { version } from '../ui/format.js';
import type { AnswerItem } from './thread.js';

export function SideTurnView({ item, side, body }: { item: AnswerItem; side: NonNullable<AnswerItem['side']>; body: ReactNode }) {
  const prompt = stripEnvelope(side.prompt).replace(/\s+/g, ' ').trim();
  return (
    <article className="message message-side" aria-label={`Side turn answered by ${version(item.version)}`}>
      <p className="side-head">
        <span className="badge badge-side" title="Served beside the conversation; side turns are never trained on">
          side turn · not trained on
        </span>
      </p>
      <details className="side-prompt">
        <summary>
          {side.role === 'user' ? 'Asked' : `${side.role} message`}: {prompt.length > 100 ? `${prompt.slice(0, 99)}…` : prompt || '(empty)'}
        </summary>
        <p className="user-text">{side.prompt}</p>
      </details>
      {body}
    </article>
  );
}
