import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { postJson, startTestServer, type TestServer } from '../helpers/testServer.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

const ask = async (t: TestServer, text: string, headers: Record<string, string>, body: Record<string, unknown> = {}) => {
  const res = await postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content: text }], ...body }, headers);
  assert.equal(res.status, 200);
  return ((await res.json()) as { id: string }).id;
};

describe('sessions over HTTP', () => {
  it('X-Session-Done ends the session after its turn: the turn is closed without a next state', async () => {
    t = await startTestServer({ engine: new FakeEngine([]) });
    const h = { 'x-session-id': 's', 'x-turn-type': 'main' };
    const a = await ask(t, 'one', h);
    const b = await ask(t, 'two', { ...h, 'x-session-done': 'true' });
    assert.equal(t.store.getTurn(a)!.nextState!.text, 'two');
    assert.equal(t.store.getTurn(b)!.closed, true);
    assert.equal(t.store.sessions()[0].endReason, 'done');
  });

  it('body fields session_id / turn_type / session_done work when headers are absent, and never reach the model', async () => {
    const engine = new FakeEngine([]);
    t = await startTestServer({ engine });
    const a = await ask(t, 'one', {}, { session_id: 'body-s', turn_type: 'main' });
    await ask(t, 'two', {}, { session_id: 'body-s', turn_type: 'main', session_done: 1 });
    assert.equal(t.store.getTurn(a)!.sessionId, 'body-s');
    assert.equal(t.store.getTurn(a)!.nextState!.text, 'two');
    assert.equal(t.store.sessions()[0].endReason, 'done');
    for (const r of engine.requests)
      assert.deepEqual(
        Object.keys(r).filter((k) => /session|turn_type/.test(k)),
        [],
      );
  });

  it('sessions idle longer than the timeout end on their own', async () => {
    t = await startTestServer({ engine: new FakeEngine([]), options: { sessionIdleMs: 200 } });
    const id = await ask(t, 'hello', { 'x-session-id': 'idle-s', 'x-turn-type': 'main' });
    for (let i = 0; i < 100 && t.store.sessions()[0].endedAt === null; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(t.store.sessions()[0].endReason, 'idle');
    assert.equal(t.store.getTurn(id)!.closed, true);
  });
});
