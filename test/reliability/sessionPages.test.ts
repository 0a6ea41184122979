import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionList } from '../../main/protocol/sessions.js';
import { AppQueries } from '../../main/store/appQueries.js';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { storedTurn } from '../helpers/ratedTurn.js';
import { api, startTestServer, type TestServer } from '../helpers/testServer.js';

const SESSIONS = 450;

/**
 * Issue 41 (second probe, NEW-3): GET /api/sessions returned every session at once (6.7k: 1.9 MB,
 * 190–370 ms, /healthz waiting meanwhile). It now answers a page at a time.
 */
describe('issue 41: the session list is paged', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ engine: new FakeEngine([]) });
    const t0 = Date.now();
    t.db.transaction(() => {
      for (let i = 0; i < SESSIONS; i++) {
        // Pairs share a time, so the order falls back on the id and the cursor must carry both.
        const id = `page-${String(i).padStart(3, '0')}`;
        const ep = t.store.openSession(id, t0 + Math.floor(i / 2));
        t.store.insertTurn(storedTurn({ id: `turn-${i}`, sessionId: id, createdAt: t0 + Math.floor(i / 2) }), ep);
      }
      t.store.insertTurn(storedTurn({ id: 'loose', sessionId: null }), 0);
    })();
  });
  after(() => t.close());

  it('pages of 200 by default, newest activity first; the cursors walk every session once; "unknown" comes with the first page', async () => {
    const sessions = AppQueries.prototype.sessions;
    AppQueries.prototype.sessions = () => assert.fail('a page built the list of every session');
    try {
      const seen: string[] = [];
      let cursor: string | null | undefined;
      let pages = 0;
      do {
        const r = await api<SessionList>(t, 'GET', `/api/sessions${cursor ? `?cursor=${cursor}` : ''}`);
        assert.equal(r.status, 200);
        pages++;
        const ids = r.body.data.map((s) => s.id);
        if (pages === 1) {
          assert.equal(ids.length, 201, '200 sessions and "unknown"');
          assert.equal(ids.at(-1), 'unknown');
          seen.push(...ids.slice(0, -1));
        } else {
          assert.ok(!ids.includes('unknown'));
          seen.push(...ids);
        }
        assert.equal(r.body.has_more, r.body.next_cursor !== null);
        cursor = r.body.next_cursor;
      } while (cursor);
      assert.equal(pages, 3);
      const expected = Array.from({ length: SESSIONS }, (_, i) => `page-${String(SESSIONS - 1 - i).padStart(3, '0')}`);
      assert.deepEqual(seen, expected, 'each session once, newest first, ties by id');
    } finally {
      AppQueries.prototype.sessions = sessions;
    }
  });

  it('limit is 1 to 1000; a cursor the server did not give is a 400', async () => {
    const one = await api<SessionList>(t, 'GET', '/api/sessions?limit=1');
    assert.deepEqual([one.status, one.body.data.map((s) => s.id)], [200, ['page-449', 'unknown']]);
    assert.equal((await api<SessionList>(t, 'GET', '/api/sessions?limit=1000')).body.data.length, SESSIONS + 1);
    for (const q of ['limit=0', 'limit=1001', 'cursor=not-a-cursor', `cursor=${Buffer.from('[1,2]').toString('base64url')}`]) {
      const r = await api<{ error: { param: string } }>(t, 'GET', `/api/sessions?${q}`);
      assert.equal(r.status, 400, q);
    }
  });
});
