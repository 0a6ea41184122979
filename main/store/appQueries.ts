import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

/** Filters of the Data screen's turn list (GET /api/turns). */
export interface TurnFilter {
  sessionId?: string;
  hasFeedback?: boolean;
  trained?: boolean;
  minReward?: number;
  maxReward?: number;
  /** Only turns created before this time (ms): the next page. */
  before?: number;
  /** Only turns whose request messages or answer contain this text (SQLite LIKE: ASCII letters in any case). */
  text?: string;
  limit: number;
}

export interface SessionSummary {
  id: string;
  title: string | null;
  createdAt: number;
  lastSeenAt: number;
  endedAt: number | null;
  endReason: 'done' | 'idle' | null;
  turns: number;
  mainTurns: number;
  /** The session's first request's messages, as stored (JSON): its opening user message is among them. */
  firstContent: string | null;
}

/** What became of the step a sample was trained in: its checkpoint, and whether what it learned serves now. */
export interface StepOutcome {
  checkpointId: string | null;
  /** The step is the live checkpoint's step or one it descends from: what it learned is served now. */
  live: boolean;
  /** The adapter version serving now. */
  liveVersion: number;
  /** The first adapter version that served the step's checkpoint (stable, unlike `liveVersion`); null if it never served. */
  firstVersion: number | null;
  /** Why the step's checkpoint is not live when the competence gate held it back (its reason), else null. */
  heldBack: string | null;
  /** The competence gate is checking the step's checkpoint now (saved, not live yet). */
  checking: boolean;
}

/** A turn's reward as the Data screen filters it: its sample's, else the PRM's, else its rating's. */
const REWARD_SQL = `COALESCE(
  (SELECT MAX(s.reward) FROM samples s WHERE s.turn_id = t.id),
  (SELECT j.score FROM judgements j WHERE j.turn_id = t.id AND j.kind = 'prm' ORDER BY j.id DESC LIMIT 1),
  CASE f.rating WHEN 'up' THEN 1 WHEN 'down' THEN -1 END)`;

/**
 * Reads and edits the app needs beyond the learning loop's own: session titles and deletion,
 * filtered turn lists, and the outcome of a step for a turn's receipt.
 */
export class AppQueries {
  private readonly cache = new Map<string, Statement<unknown[]>>();

  constructor(private readonly db: Db) {}

  private q(sql: string): Statement<unknown[]> {
    let s = this.cache.get(sql);
    if (!s) this.cache.set(sql, (s = this.db.prepare<unknown[]>(sql)));
    return s;
  }

  sessions(): SessionSummary[] {
    return (this.q(sessionsSql('')).all() as Array<Record<string, unknown>>).map(toSummary);
  }

  /**
   * One page of sessions, newest activity first: those after `after` (the last one of the previous
   * page) in that order, at most `limit` plus one (which tells that another page follows). Only the
   * page's sessions are counted and joined with their turns.
   */
  sessionPage(limit: number, after?: { lastSeenAt: number; id: string }): SessionSummary[] {
    const where = after ? 'WHERE (last_seen_at, id) < (?, ?)' : '';
    const sql = `SELECT s.id, s.title, s.created_at, s.last_seen_at, s.ended_at, s.end_reason,
                 COUNT(t.id) AS turns, COALESCE(SUM(t.type = 'main'), 0) AS main_turns,
                 (SELECT t1.request_messages FROM turns t1 WHERE t1.session_id = s.id
                    ORDER BY t1.created_at, t1.rowid LIMIT 1) AS first_content
            FROM (SELECT * FROM sessions ${where} ORDER BY last_seen_at DESC, id DESC LIMIT ?) s
            LEFT JOIN turns t ON t.session_id = s.id GROUP BY s.id ORDER BY s.last_seen_at DESC, s.id DESC`;
    const args = after ? [after.lastSeenAt, after.id, limit + 1] : [limit + 1];
    return (this.q(sql).all(...args) as Array<Record<string, unknown>>).map(toSummary);
  }

  /** Turns that came without a session, summed up as the pseudo-session "unknown"; null when there are none. */
  unattached(): SessionSummary | null {
    const r = this.q(
      `SELECT COUNT(*) AS turns, COALESCE(SUM(type = 'main'), 0) AS main_turns, MIN(created_at) AS created_at, MAX(created_at) AS last_seen_at,
              (SELECT t1.request_messages FROM turns t1 WHERE t1.session_id IS NULL
                 ORDER BY t1.created_at, t1.rowid LIMIT 1) AS first_content
         FROM turns WHERE session_id IS NULL`,
    ).get() as Record<string, unknown>;
    if (!r.turns) return null;
    return toSummary({ ...r, id: 'unknown', title: null, ended_at: null, end_reason: null });
  }

  /** One session's summary, read by its key (not picked from the whole list: 10k sessions took 270 ms). */
  session(id: string): SessionSummary | null {
    const r = this.q(sessionsSql('WHERE s.id = ?')).get(id) as Record<string, unknown> | undefined;
    return r ? toSummary(r) : null;
  }

  /** Renames a session (null removes the name); false when there is no such session. */
  setTitle(id: string, title: string | null): boolean {
    return this.q('UPDATE sessions SET title = ? WHERE id = ?').run(title, id).changes > 0;
  }

  /**
   * Deletes a session with its turns, feedback, judgements and samples (trained samples live on in
   * the checkpoints that learned from them). Refuses while a step is training on one of its samples.
   */
  deleteSession(id: string): { turns: number; samplesRemoved: number } | null | 'training' {
    return this.db
      .transaction(() => {
        if (!this.q('SELECT 1 FROM sessions WHERE id = ?').get(id)) return null;
        const busy = this.q(
          "SELECT 1 FROM samples s JOIN turns t ON t.id = s.turn_id WHERE t.session_id = ? AND s.status = 'training' LIMIT 1",
        ).get(id);
        if (busy) return 'training' as const;
        const samplesRemoved = (
          this.q(
            "SELECT COUNT(*) AS n FROM samples s JOIN turns t ON t.id = s.turn_id WHERE t.session_id = ? AND s.status != 'trained'",
          ).get(id) as { n: number }
        ).n;
        const turns = (this.q('SELECT COUNT(*) AS n FROM turns WHERE session_id = ?').get(id) as { n: number }).n;
        this.q('DELETE FROM sessions WHERE id = ?').run(id); // turns, feedback, judgements, samples cascade
        return { turns, samplesRemoved };
      })
      .immediate();
  }

  /** Turn ids matching `f`, newest first; one more than `limit` tells that there is a next page. */
  turnIds(f: TurnFilter): string[] {
    const where: string[] = [];
    const args: unknown[] = [];
    const add = (clause: string, ...values: unknown[]) => {
      where.push(clause);
      args.push(...values);
    };
    if (f.sessionId === 'unknown') add('t.session_id IS NULL');
    else if (f.sessionId !== undefined) add('t.session_id = ?', f.sessionId);
    if (f.hasFeedback !== undefined) add(`f.turn_id IS ${f.hasFeedback ? 'NOT ' : ''}NULL`);
    if (f.trained !== undefined)
      add(`${f.trained ? '' : 'NOT '}EXISTS (SELECT 1 FROM samples s WHERE s.turn_id = t.id AND s.status = 'trained')`);
    if (f.minReward !== undefined) add(`${REWARD_SQL} >= ?`, f.minReward);
    if (f.maxReward !== undefined) add(`${REWARD_SQL} <= ?`, f.maxReward);
    if (f.before !== undefined) add('t.created_at < ?', f.before);
    if (f.text) {
      const pattern = `%${f.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      add("(t.request_messages LIKE ? ESCAPE '\\' OR t.response_text LIKE ? ESCAPE '\\')", pattern, pattern);
    }
    const sql = `SELECT t.id FROM turns t LEFT JOIN feedback f ON f.turn_id = t.id
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY t.created_at DESC, t.rowid DESC LIMIT ?`;
    return (this.q(sql).all(...args, f.limit + 1) as Array<{ id: string }>).map((r) => r.id);
  }

  /** A turn's place in the learning loop: 'new' (not judged yet), 'done' (samples built) or 'skipped'. */
  learnState(turnId: string): 'new' | 'done' | 'skipped' {
    const r = this.q('SELECT learn_state FROM turns WHERE id = ?').get(turnId) as { learn_state: 'new' | 'done' | 'skipped' } | undefined;
    return r?.learn_state ?? 'new';
  }

  stepOutcome(step: number): StepOutcome {
    const r = this.q(
      `SELECT st.checkpoint_id AS cp, json_extract(c.competence, '$.held_back') AS held, json_extract(c.competence, '$.reason') AS reason, c.gate_pending AS pending,
              (SELECT MIN(v.version) FROM adapter_versions v WHERE v.checkpoint_id = st.checkpoint_id) AS first
         FROM steps st LEFT JOIN checkpoints c ON c.id = st.checkpoint_id WHERE st.step = ?`,
    ).get(step) as
      { cp: string | null; held: number | null; reason: string | null; pending: number | null; first: number | null } | undefined;
    const { steps, version } = this.liveLineage();
    const live = steps.has(step);
    return {
      checkpointId: r?.cp ?? null,
      live,
      liveVersion: version,
      firstVersion: r?.first ?? null,
      heldBack: !live && r?.held === 1 ? r.reason : null,
      checking: !live && r?.pending === 1,
    };
  }

  private lineage: { key: string; steps: Set<number>; version: number } | null = null;

  /** The steps the live adapter is made of: the live checkpoint's step and its ancestors (cached until it changes). */
  private liveLineage(): { steps: Set<number>; version: number } {
    const s = this.q(
      `SELECT ts.live_version AS version, ts.last_step AS last, st.step AS step
         FROM trainer_state ts LEFT JOIN steps st ON st.checkpoint_id = ts.live_checkpoint_id WHERE ts.id = 1`,
    ).get() as { version: number; last: number; step: number | null };
    const key = `${s.version}:${s.last}`;
    if (this.lineage?.key === key) return this.lineage;
    const steps = new Set<number>();
    const parent = this.q('SELECT parent_step AS p FROM steps WHERE step = ?');
    for (let cur = s.step; cur !== null && !steps.has(cur);) {
      steps.add(cur);
      cur = (parent.get(cur) as { p: number | null } | undefined)?.p ?? null;
    }
    this.lineage = { key, steps, version: s.version };
    return this.lineage;
  }
}

/** Sessions with their turn counts and first request, filtered by `where` (on `s`, the sessions table). */
function sessionsSql(where: string): string {
  return `SELECT s.id, s.title, s.created_at, s.last_seen_at, s.ended_at, s.end_reason,
                 COUNT(t.id) AS turns, COALESCE(SUM(t.type = 'main'), 0) AS main_turns,
                 (SELECT t1.request_messages FROM turns t1 WHERE t1.session_id = s.id
                    ORDER BY t1.created_at, t1.rowid LIMIT 1) AS first_content
            FROM sessions s LEFT JOIN turns t ON t.session_id = s.id ${where} GROUP BY s.id ORDER BY s.last_seen_at, s.id`;
}

function toSummary(r: Record<string, unknown>): SessionSummary {
  return {
    id: r.id as string,
    title: (r.title as string | null) ?? null,
    createdAt: r.created_at as number,
    lastSeenAt: r.last_seen_at as number,
    endedAt: (r.ended_at as number | null) ?? null,
    endReason: (r.end_reason as 'done' | 'idle' | null) ?? null,
    turns: r.turns as number,
    mainTurns: r.main_turns as number,
    firstContent: r.first_content === null || r.first_content === undefined ? null : String(r.first_content),
  };
}
