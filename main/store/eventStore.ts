import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

/** A stored event of the live stream. */
export interface StoredEvent {
  id: number;
  at: number;
  name: string;
  /** The JSON text of the event's data. */
  data: string;
}

/** How much of the stream is kept for clients that reconnect: at least this many events… */
export const KEEP_EVENTS = 10_000;
/** …and at least everything this recent. */
export const KEEP_EVENTS_MS = 60 * 60_000;
const PRUNE_EVERY = 500;

/**
 * The event log behind GET /api/events. Ids come from SQLite (INTEGER PRIMARY KEY, never reused
 * because pruning keeps the newest row), so they keep increasing across restarts.
 */
export class EventStore {
  private readonly insert: Statement<[number, string, string]>;
  private readonly after: Statement<[number, number]>;
  private readonly prune: Statement<[number, number]>;
  private readonly bounds: Statement<[], { lo: number | null; hi: number | null }>;
  private sinceLastPrune = 0;

  constructor(db: Db) {
    this.insert = db.prepare('INSERT INTO events (at, name, data) VALUES (?, ?, ?)');
    this.after = db.prepare('SELECT id, at, name, data FROM events WHERE id > ? ORDER BY id LIMIT ?');
    this.prune = db.prepare('DELETE FROM events WHERE id <= ? AND at < ?');
    this.bounds = db.prepare('SELECT MIN(id) AS lo, MAX(id) AS hi FROM events');
  }

  /** Stores an event; returns its id. */
  append(name: string, data: string, at: number): number {
    const id = Number(this.insert.run(at, name, data).lastInsertRowid);
    if (++this.sinceLastPrune >= PRUNE_EVERY) {
      this.sinceLastPrune = 0;
      this.prune.run(id - KEEP_EVENTS, Date.now() - KEEP_EVENTS_MS);
    }
    return id;
  }

  /** Events after `id`, oldest first (at most `limit`). */
  since(id: number, limit = 100_000): StoredEvent[] {
    return this.after.all(id, limit) as StoredEvent[];
  }

  /** The oldest and newest stored ids (0 when there are none). */
  range(): { oldest: number; newest: number } {
    const r = this.bounds.get()!;
    return { oldest: r.lo ?? 0, newest: r.hi ?? 0 };
  }
}
