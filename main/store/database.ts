import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';

/** The database file inside a data folder. */
export const DB_FILE = 'clawloop.db';

export type Db = Database.Database;

export class DatabaseError extends Error {
  override name = 'DatabaseError';
}

/**
 * Opens (creating if needed) ClawLoop's SQLite database with write-ahead logging, foreign keys
 * and full fsync on commit, and applies pending migrations.
 */
export function openDatabase(file: string): Db {
  // Conversations (and a judge endpoint's key) live here: readable by their owner only.
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let db: Db;
  try {
    db = new Database(file);
  } catch (err) {
    throw new DatabaseError(`cannot open the database ${file}: ${(err as Error).message}`);
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = FULL'); // a committed turn survives a crash or power loss
    db.pragma('busy_timeout = 5000');
    migrate(db, file);
    ownerOnly(file);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

function migrate(db: Db, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = MIGRATIONS[MIGRATIONS.length - 1].version;
  if (current > latest) {
    throw new DatabaseError(`${file} has schema version ${current}, newer than this ClawLoop knows (${latest}); upgrade ClawLoop`);
  }
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}

/** Makes the database and its journal files readable and writable by their owner only (no-op on Windows). */
function ownerOnly(file: string): void {
  if (process.platform === 'win32') return;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.chmodSync(f, 0o600);
    } catch {
      // the journal files exist only while the database is open in WAL mode
    }
  }
}
