import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppQueries } from '../../main/store/appQueries.js';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { storedTurn } from '../helpers/ratedTurn.js';
import { api, postJson, startTestServer, type TestServer } from '../helpers/testServer.js';

type Err = { error: { message: string; code: string; param: string | null } };

/** Issue 41, finding 12: session ids and titles are bounded and cannot hide or reorder text. */
describe('issue 41: session ids and titles', () => {
  let t: TestServer;
  before(async () => (t = await startTestServer({ engine: new FakeEngine([]) })));
  after(() => t.close());

  const ask = (session_id: string) =>
    postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, session_id });

  it('12: a session id of 900 kB, or with NUL or an RTL override, is a 400 that says why; an accented one is fine', async () => {
    const long = await ask('s'.repeat(900_000));
    assert.equal(long.status, 400);
    const body = (await long.json()) as Err;
    assert.deepEqual([body.error.code, body.error.param], ['invalid_session_id', 'session_id']);
    assert.match(body.error.message, /900000 characters long; at most 256/);
    for (const bad of ['null\u0000byte', 'report\u202etxt.exe', 'zero\u200bwidth']) {
      const r = await ask(bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.match(((await r.json()) as Err).error.message, /control characters or invisible bidi/);
    }
    assert.equal((await ask('café-session')).status, 200);
    assert.equal(t.store.sessions().length, 1, 'only the good one was recorded');
  });

  it('12: a title with an RTL override or over 200 characters is refused; a plain one is kept', async () => {
    const id = t.store.sessions()[0].id;
    const rtl = await api<Err>(t, 'PATCH', `/api/sessions/${encodeURIComponent(id)}`, { title: 'invoice \u202egpj.exe' });
    assert.equal(rtl.status, 400);
    assert.match(rtl.body.error.message, /invisible bidi/);
    const long = await api<Err>(t, 'PATCH', `/api/sessions/${encodeURIComponent(id)}`, { title: 'x'.repeat(201) });
    assert.equal(long.status, 400);
    assert.match(long.body.error.message, /at most 200 characters/);
    assert.equal((await api(t, 'PATCH', `/api/sessions/${encodeURIComponent(id)}`, { title: 'Café notes' })).status, 200);
  });

  it('12: titles stored before the check, and previews of what the user typed, are shown without hiding or reordering characters', async () => {
    const ep = t.store.openSession('older', Date.now());
    t.store.insertTurn(
      storedTurn({ id: 'older-1', sessionId: 'older', requestMessages: [{ role: 'user', content: 'open \u202efdp.exe\u0000 now' }] }),
      ep,
    );
    t.db.prepare('UPDATE sessions SET title = ? WHERE id = ?').run('invoice \u202egpj.exe\u200b\u0007', 'older');
    const list = await api<{ data: Array<{ id: string; title: string | null; preview: string | null }> }>(t, 'GET', '/api/sessions');
    const older = list.body.data.find((s) => s.id === 'older')!;
    assert.deepEqual([older.title, older.preview], ['invoice gpj.exe ', 'open fdp.exe now']);
    const one = await api<{ title: string | null }>(t, 'GET', '/api/sessions/older');
    assert.equal(one.body.title, 'invoice gpj.exe ');
  });

  it('12: one session is read by its key, not picked out of the whole list', () => {
    const app = new AppQueries(t.db);
    app.sessions = () => assert.fail('session(id) built the list of every session');
    assert.equal(app.session('older')?.turns, 1);
    assert.equal(app.session('no-such-session'), null);
  });
});
