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
 */
export function* exportSessions(store: TurnStore): Generator<ExportedSession> {
  for (const s of store.sessions()) yield { session_id: s.id, turns: store.sessionTurns(s.id).map(exportTurn) };
  const loose = store.unattachedTurns();
  if (loose.length) yield { session_id: 'unknown', turns: loose.map(exportTurn) };
}

/** The ids of a session's turns that a filtered export keeps (evaluated one session at a time). */
export type KeptTurns = (sessionId: string) => ReadonlySet<string>;

/**
 * Like {@link exportSessions}, keeping only the turns `kept` names and the sessions that keep one.
 * The filter runs one session at a time, so a consumer can yield to other work between sessions; a
 * session that keeps nothing yields null (work done, nothing to write) and its turns are not read.
 */
export function* exportFilteredSessions(store: TurnStore, kept: KeptTurns): Generator<ExportedSession | null> {
  for (const id of [...store.sessions().map((s) => s.id), 'unknown']) {
    const ids = kept(id);
    if (ids.size === 0) {
      yield null;
      continue;
    }
    const turns = id === 'unknown' ? store.unattachedTurns() : store.sessionTurns(id);
    yield { session_id: id, turns: turns.filter((t) => ids.has(t.id)).map(exportTurn) };
  }
}
