import type { StoredTurn, TurnStore } from './turnStore.js';

/** One line of `clawloop export`: a session and its turns in order. */
export interface ExportedSession {
  session_id: string;
  turns: Array<{
    type: 'main' | 'side';
    /** The rendered prompt text the model saw. */
    prompt: string;
    /** The text the model generated (tool-call and reasoning markup included). */
    response: string;
    /** The next state's text, or null. */
    next_state: string | null;
    /** A main turn with a next state. */
    trainable: boolean;
  }>;
}

function exportTurn(t: StoredTurn): ExportedSession['turns'][number] {
  return {
    type: t.type,
    prompt: t.promptText,
    response: t.rawText,
    next_state: t.nextState ? t.nextState.text : null,
    trainable: t.type === 'main' && t.nextState !== null && t.finishReason !== 'abort',
  };
}

/**
 * Every session in creation order, then turns that came without a session (as session "unknown").
 * With `keep`, only the turns it keeps, and only sessions that keep one.
 */
export function* exportSessions(store: TurnStore, keep?: (t: StoredTurn) => boolean): Generator<ExportedSession> {
  const line = (id: string, turns: StoredTurn[]) => {
    const kept = keep ? turns.filter(keep) : turns;
    return kept.length || (!keep && id !== 'unknown') ? { session_id: id, turns: kept.map(exportTurn) } : null;
  };
  for (const s of store.sessions()) {
    const l = line(s.id, store.sessionTurns(s.id));
    if (l) yield l;
  }
  const loose = line('unknown', store.unattachedTurns());
  if (loose) yield loose;
}
