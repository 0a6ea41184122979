import type { Db } from './database.js';
import { toTurn, toTurnRow, type TurnRow } from './turnRows.js';

export type TurnType = 'main' | 'side';
export type StoredFinishReason = 'stop' | 'length' | 'tool_calls' | 'abort';

/** A finished model call, as the server records it. */
export interface TurnRecord {
  id: string;
  /** null when the request carried no session metadata (never linked, never trained on). */
  sessionId: string | null;
  type: TurnType;
  createdAt: number;
  completedAt: number;
  model: string;
  adapterVersion: number;
  requestMessages: unknown[];
  tools: unknown[] | null;
  params: Record<string, unknown>;
  promptText: string;
  promptIds: number[];
  rawText: string;
  responseText: string;
  reasoningText: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }> | null;
  responseIds: number[];
  responseLogprobs: number[];
  finishReason: StoredFinishReason;
  promptTokens: number;
  completionTokens: number;
  queueMs: number | null;
  prefillMs: number | null;
  decodeMs: number | null;
  totalMs: number | null;
}

export interface NextState {
  role: string;
  text: string;
  at: number;
}

export interface StoredTurn extends TurnRecord {
  episode: number;
  nextState: NextState | null;
  /** The session ended before a next state arrived. */
  closed: boolean;
}

export interface SessionRow {
  id: string;
  createdAt: number;
  lastSeenAt: number;
  endedAt: number | null;
  endReason: 'done' | 'idle' | null;
  episode: number;
  turns: number;
  mainTurns: number;
}

/**
 * Sessions and turns in SQLite. Every method is one short transaction, run on the caller's
 * thread (the HTTP thread): statements are prepared once and touch a few rows. Transactions that
 * read then write are IMMEDIATE: with a second connection (the trainer) writing, a deferred one
 * could fail with SQLITE_BUSY instead of waiting for the lock.
 *
 * Next-state rule (docs/learning-loop.md §1): when a main request arrives in a session, its last
 * message is the next state of that session's latest main turn, if that turn has none yet. Side
 * turns, aborted turns and turns without a session never link.
 */
export class TurnStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      getSession: db.prepare<[string], { ended_at: number | null; episode: number }>('SELECT ended_at, episode FROM sessions WHERE id = ?'),
      insertSession: db.prepare('INSERT INTO sessions (id, created_at, last_seen_at) VALUES (?, ?, ?)'),
      touchSession: db.prepare('UPDATE sessions SET last_seen_at = ? WHERE id = ?'),
      reopenSession: db.prepare(
        'UPDATE sessions SET last_seen_at = ?, ended_at = NULL, end_reason = NULL, episode = episode + 1 WHERE id = ?',
      ),
      latestMain: db.prepare<[string, number], { id: string; next_state_role: string | null; closed: number }>(
        `SELECT id, next_state_role, closed FROM turns
          WHERE session_id = ? AND episode = ? AND type = 'main' AND finish_reason != 'abort'
          ORDER BY created_at DESC, rowid DESC LIMIT 1`,
      ),
      setNextState: db.prepare('UPDATE turns SET next_state_role = ?, next_state_text = ?, next_state_at = ? WHERE id = ?'),
      insertTurn: db.prepare(
        `INSERT INTO turns (id, session_id, episode, type, created_at, completed_at, model, adapter_version, request_messages, tools,
           params, prompt_text, prompt_ids, raw_text, response_text, reasoning_text, tool_calls, response_ids, response_logprobs,
           finish_reason, prompt_tokens, completion_tokens, queue_ms, prefill_ms, decode_ms, total_ms)
         VALUES (@id, @session_id, @episode, @type, @created_at, @completed_at, @model, @adapter_version, @request_messages, @tools,
           @params, @prompt_text, @prompt_ids, @raw_text, @response_text, @reasoning_text, @tool_calls, @response_ids,
           @response_logprobs, @finish_reason, @prompt_tokens, @completion_tokens, @queue_ms, @prefill_ms, @decode_ms, @total_ms)`,
      ),
      endSession: db.prepare('UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL'),
      closeTurns: db.prepare('UPDATE turns SET closed = 1 WHERE session_id = ? AND episode = ? AND next_state_role IS NULL'),
      idleSessions: db.prepare<[number], { id: string }>('SELECT id FROM sessions WHERE ended_at IS NULL AND last_seen_at < ?'),
      getTurn: db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE id = ?'),
      sessionTurns: db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE session_id = ? ORDER BY created_at, rowid'),
      unknownTurns: db.prepare<[], TurnRow>('SELECT * FROM turns WHERE session_id IS NULL ORDER BY created_at, rowid'),
      sessions: db.prepare<
        [],
        {
          id: string;
          created_at: number;
          last_seen_at: number;
          ended_at: number | null;
          end_reason: 'done' | 'idle' | null;
          episode: number;
          turns: number;
          main_turns: number;
        }
      >(
        `SELECT s.*, COUNT(t.id) AS turns, COALESCE(SUM(t.type = 'main'), 0) AS main_turns
           FROM sessions s LEFT JOIN turns t ON t.session_id = s.id GROUP BY s.id ORDER BY s.created_at, s.id`,
      ),
      countTurns: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM turns'),
    };
  }

  /**
   * Records a request arriving in a session: creates the session, or reopens it (a new episode)
   * if it had ended. Returns the episode the request belongs to.
   */
  openSession(sessionId: string, at: number): number {
    return this.db
      .transaction(() => {
        const row = this.s.getSession.get(sessionId);
        if (!row) {
          this.s.insertSession.run(sessionId, at, at);
          return 0;
        }
        if (row.ended_at !== null) {
          this.s.reopenSession.run(at, sessionId);
          return row.episode + 1;
        }
        this.s.touchSession.run(at, sessionId);
        return row.episode;
      })
      .immediate();
  }

  /** Links `state` as the next state of the session's latest main turn; returns its id, or null. */
  linkNextState(sessionId: string, episode: number, state: NextState): string | null {
    return this.db
      .transaction(() => {
        const prev = this.s.latestMain.get(sessionId, episode);
        if (!prev || prev.next_state_role !== null || prev.closed) return null;
        this.s.setNextState.run(state.role, state.text, state.at, prev.id);
        return prev.id;
      })
      .immediate();
  }

  /** Stores a finished turn (one transaction). */
  insertTurn(t: TurnRecord, episode: number): void {
    this.s.insertTurn.run(toTurnRow(t, episode));
  }

  /** Ends a session: turns still waiting for a next state are closed without one. */
  endSession(sessionId: string, reason: 'done' | 'idle', at: number): boolean {
    return this.db
      .transaction(() => {
        const row = this.s.getSession.get(sessionId);
        if (!row || row.ended_at !== null) return false;
        this.s.endSession.run(at, reason, sessionId);
        this.s.closeTurns.run(sessionId, row.episode);
        return true;
      })
      .immediate();
  }

  /**
   * Ends a session on the client's word, optionally with the message that followed its last main
   * turn (a final "thanks!" or complaint: that turn's next state). One transaction.
   * Returns null for an unknown session, 'ended' when it had already ended.
   */
  finishSession(sessionId: string, state: NextState | null, at: number): { linkedTurnId: string | null } | 'ended' | null {
    return this.db
      .transaction(() => {
        const row = this.s.getSession.get(sessionId);
        if (!row) return null;
        if (row.ended_at !== null) return 'ended' as const;
        let linkedTurnId: string | null = null;
        if (state) {
          const prev = this.s.latestMain.get(sessionId, row.episode);
          if (prev && prev.next_state_role === null && !prev.closed) {
            this.s.setNextState.run(state.role, state.text, state.at, prev.id);
            linkedTurnId = prev.id;
          }
        }
        this.s.endSession.run(at, 'done', sessionId);
        this.s.closeTurns.run(sessionId, row.episode);
        return { linkedTurnId };
      })
      .immediate();
  }

  /** Ends every open session last seen before `now - idleMs`; returns how many. */
  endIdleSessions(now: number, idleMs: number): number {
    let n = 0;
    for (const { id } of this.s.idleSessions.all(now - idleMs)) if (this.endSession(id, 'idle', now)) n++;
    return n;
  }

  getTurn(id: string): StoredTurn | null {
    const r = this.s.getTurn.get(id);
    return r ? toTurn(r) : null;
  }

  sessionTurns(sessionId: string): StoredTurn[] {
    return this.s.sessionTurns.all(sessionId).map(toTurn);
  }

  /** Turns that came without session metadata. */
  unattachedTurns(): StoredTurn[] {
    return this.s.unknownTurns.all().map(toTurn);
  }

  sessions(): SessionRow[] {
    return this.s.sessions.all().map((r) => ({
      id: r.id,
      createdAt: r.created_at,
      lastSeenAt: r.last_seen_at,
      endedAt: r.ended_at,
      endReason: r.end_reason,
      episode: r.episode,
      turns: r.turns,
      mainTurns: r.main_turns,
    }));
  }

  turnCount(): number {
    return this.s.countTurns.get()!.n;
  }
}
