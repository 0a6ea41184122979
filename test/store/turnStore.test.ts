import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, type Db } from '../../main/store/database.js';
import { MIGRATIONS } from '../../main/store/migrations.js';
import { TurnStore, type TurnRecord } from '../../main/store/turnStore.js';

let n = 0;
function turn(sessionId: string | null, type: 'main' | 'side', at: number, extra: Partial<TurnRecord> = {}): TurnRecord {
  return {
    id: `t${++n}`,
    sessionId,
    type,
    createdAt: at,
    completedAt: at + 1,
    model: 'm',
    adapterVersion: 0,
    requestMessages: [{ role: 'user', content: 'x' }],
    tools: null,
    params: {},
    promptText: 'p',
    promptIds: [1, 2, 300000],
    rawText: 'r',
    responseText: 'r',
    reasoningText: '',
    toolCalls: null,
    responseIds: [5, 6],
    responseLogprobs: [-0.25, -1.5],
    finishReason: 'stop',
    promptTokens: 3,
    completionTokens: 2,
    queueMs: 0,
    prefillMs: 1,
    decodeMs: 2,
    totalMs: 3,
    ...extra,
  };
}

describe('turn store', () => {
  let dir: string;
  let db: Db;
  let store: TurnStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-store-'));
    db = openDatabase(path.join(dir, 'c.db'));
    store = new TurnStore(db);
  });

  /** A main request arriving: open the session, link the previous turn, store this turn. */
  function mainRequest(session: string, at: number, last: { role: string; text: string }, extra: Partial<TurnRecord> = {}) {
    const ep = store.openSession(session, at);
    store.linkNextState(session, ep, { ...last, at });
    const t = turn(session, 'main', at, extra);
    store.insertTurn(t, ep);
    return t.id;
  }

  it('opens with WAL, foreign keys and the latest schema version', () => {
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
    assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.at(-1)!.version);
    db.close();
  });

  it('round-trips token ids and log-probs exactly', () => {
    const id = mainRequest('s', 1, { role: 'user', text: 'hi' });
    const t = store.getTurn(id)!;
    assert.deepEqual(t.promptIds, [1, 2, 300000]);
    assert.deepEqual(t.responseLogprobs, [-0.25, -1.5]);
    db.close();
  });

  it('links each main turn to the last message of the next main request; side turns never link or get linked', () => {
    const a = mainRequest('s', 10, { role: 'user', text: 'first' });
    const ep = store.openSession('s', 11);
    store.insertTurn(turn('s', 'side', 11), ep); // a heartbeat: not a next state
    assert.equal(store.getTurn(a)!.nextState, null);
    const b = mainRequest('s', 12, { role: 'tool', text: 'result' });
    assert.deepEqual(store.getTurn(a)!.nextState, { role: 'tool', text: 'result', at: 12 });
    mainRequest('s', 13, { role: 'user', text: 'thanks' });
    assert.equal(store.getTurn(b)!.nextState!.text, 'thanks');
    assert.equal(store.getTurn(a)!.nextState!.text, 'result', 'an already linked turn keeps its next state');
    db.close();
  });

  it('ending a session closes waiting turns; a later request starts a new episode that does not link to them', () => {
    const a = mainRequest('s', 1, { role: 'user', text: 'q' });
    assert.equal(store.endSession('s', 'done', 2), true);
    assert.equal(store.endSession('s', 'done', 3), false, 'already ended');
    assert.equal(store.getTurn(a)!.closed, true);
    const b = mainRequest('s', 4, { role: 'user', text: 'back again' });
    assert.equal(store.getTurn(a)!.nextState, null);
    const sessions = store.sessions();
    assert.equal(sessions[0].episode, 1);
    assert.equal(sessions[0].endedAt, null, 'reopened');
    assert.equal(store.getTurn(b)!.episode, 1);
    db.close();
  });

  it('idle sessions end after the timeout; aborted turns are never linked', () => {
    mainRequest('old', 0, { role: 'user', text: 'x' });
    mainRequest('new', 90, { role: 'user', text: 'x' });
    assert.equal(store.endIdleSessions(100, 50), 1);
    assert.deepEqual(
      store.sessions().map((s) => [s.id, s.endReason]),
      [
        ['old', 'idle'],
        ['new', null],
      ],
    );
    const aborted = mainRequest('z', 1, { role: 'user', text: 'x' }, { finishReason: 'abort' });
    mainRequest('z', 2, { role: 'user', text: 'y' });
    assert.equal(store.getTurn(aborted)!.nextState, null);
    db.close();
  });

  it('refuses a database from a newer ClawLoop with a clear error', () => {
    const file = path.join(dir, 'newer.db');
    const raw = new Database(file);
    raw.pragma('user_version = 999');
    raw.close();
    assert.throws(() => openDatabase(file), /schema version 999, newer than this ClawLoop knows/);
    db.close();
  });
});
