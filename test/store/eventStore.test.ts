import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../main/store/database.js';
import { EventStore, KEEP_EVENTS, KEEP_EVENTS_MS } from '../../main/store/eventStore.js';

describe('the event log keeps the last 10,000 events or the last hour, whichever is more', () => {
  const open = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-events-'));
    return { db: openDatabase(path.join(dir, 'clawloop.db')), dir };
  };

  it('prunes old events beyond the newest 10,000, never the last hour', () => {
    const { db, dir } = open();
    const store = new EventStore(db);
    const now = Date.now();
    const old = now - 2 * KEEP_EVENTS_MS;
    const bulk = (n: number, at: (i: number) => number) =>
      db.transaction(() => {
        for (let i = 0; i < n; i++) store.append('turn.captured', '{}', at(i));
      })();
    bulk(KEEP_EVENTS + 1200, (i) => old + i);
    const { oldest, newest } = store.range();
    assert.equal(newest, KEEP_EVENTS + 1200);
    assert.ok(newest - oldest + 1 >= KEEP_EVENTS, 'at least 10,000 kept');
    assert.ok(oldest > 1, 'older ones pruned');
    // Within the last hour nothing is pruned, however many there are.
    bulk(KEEP_EVENTS + 600, () => now);
    const recent = (db.prepare('SELECT COUNT(*) AS n FROM events WHERE at = ?').get(now) as { n: number }).n;
    assert.equal(recent, KEEP_EVENTS + 600);
    assert.deepEqual(
      store.since(store.range().newest - 2).map((e) => e.id),
      [store.range().newest - 1, store.range().newest],
    );
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
