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
  fs.mkdirSync(path.dirname(file), { recursive: true });
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
