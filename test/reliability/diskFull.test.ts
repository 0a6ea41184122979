import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { api, chat, postJson, readSse, startTestServer, type TestServer } from '../helpers/testServer.js';

type Err = { error: { message: string; code: string; type: string } };

/**
 * A full disk, simulated with SQLite's max_page_count on the server's connection: a write that
 * needs a new page fails with SQLITE_FULL, exactly as on a full file system (issue 15, finding 11).
 */
describe('a turn answered is a turn recorded: a full disk is a 507 that says so, and everything resumes', () => {
  let t: TestServer;
  const fill = () => {
    const pages = t.db.pragma('page_count', { simple: true }) as number;
    t.db.pragma(`max_page_count = ${pages}`);
  };
  const free = () => t.db.pragma('max_page_count = 1073741823');

  before(async () => {
    const engine = new FakeEngine([]);
    engine.info.contextLength = 16_384; // room for the 8 kB hint below (hints are limited by the context)
    t = await startTestServer({ engine });
  });
  after(() => t.close());

  it('answers 507 instead of a completion whose id was never stored, streamed or not', async () => {
    const kept = await chat(t, 'recorded before the disk filled', { session: 'full', type: 'main' });
    fill();
    const big = 'x'.repeat(20_000); // needs new pages
    for (const session of ['full', undefined]) {
      const res = await postJson(
        `${t.url}/chat/completions`,
        { messages: [{ role: 'user', content: big }] },
        session ? { 'x-session-id': session, 'x-turn-type': 'main' } : {},
      );
      assert.equal(res.status, 507, `session ${session}`);
      const body = (await res.json()) as Err;
      assert.equal(body.error.code, 'insufficient_storage');
      assert.match(body.error.message, new RegExp(`disk holding ${t.dataDir.replace(/[/\\]/g, '.')} is full`));
    }
    const streamed = await postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content: big }], stream: true });
    const { events, done } = await readSse(streamed);
    assert.equal(done, false, 'no [DONE] for an answer that was not recorded');
    assert.match(JSON.stringify(events.at(-1)), /insufficient_storage/);
    const fb = await api<Err>(t, 'POST', '/v1/feedback', { completion_id: kept.id, hint: 'é'.repeat(3999) });
    assert.equal(fb.status, 507);
    free();
    const again = await chat(t, 'after space came back', { session: 'full', type: 'main' });
    assert.ok(t.store.getTurn(again.id), 'recorded once space is back');
    assert.ok(t.store.getTurn(kept.id), 'nothing stored before was lost');
    assert.equal((await api(t, 'POST', '/v1/feedback', { completion_id: kept.id, rating: 'up' })).status, 200);
  });
});
