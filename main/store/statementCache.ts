import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

/** Prepares a statement once per connection and returns the same one for the same SQL. */
export type Prepare = (sql: string) => Statement<unknown[]>;

export function statementCache(db: Db): Prepare {
  const statements = new Map<string, Statement<unknown[]>>();
  return (sql) => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = db.prepare<unknown[]>(sql)));
    return s;
  };
}
