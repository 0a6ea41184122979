import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, chat, postJson, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

type Answer = { choices: Array<{ message: { content: string } }> };

/** The Compare screen: one prompt answered by two versions side by side (body field `adapter`). */
describe('answering with a chosen checkpoint, not only the live one', () => {
  let t: TestServer;
  const ask = async (adapter?: string) => {
    const res = await postJson(`${t.url}/chat/completions`, {
      messages: [{ role: 'user', content: 'compare me' }],
      max_tokens: 6,
      temperature: 0,
      ...(adapter ? { adapter } : {}),
    });
    const body = (await res.json()) as Answer & { error?: { param: string } };
    return { status: res.status, version: res.headers.get('x-clawloop-adapter-version'), text: body.choices?.[0].message.content, body };
  };
  const step = async (n: number, rating: 'up' | 'down') => {
    const c = await chat(t, `lesson ${n}`, { session: `c${n}`, type: 'main', maxTokens: 4 });
    await api(t, 'POST', '/v1/feedback', { completion_id: c.id, rating, hint: 'answer in French' });
    await waitFor(async () => (await api<{ step: number }>(t, 'GET', '/api/training/status')).body.step >= n, `step ${n}`);
  };

  before(async () => (t = await startTestServer({ train: { method: 'combine', batch_size: 1, learning_rate: 0.05 } })));
  after(() => t.close());

  it('base, an older checkpoint and the live one each answer as they did when they were live', async () => {
    const base = await ask();
    await step(1, 'up');
    const v1 = await ask();
    await step(2, 'down');
    const live = await ask();
    assert.notEqual(v1.version, live.version);
    const again1 = await ask('step-000001');
    assert.deepEqual([again1.status, again1.version, again1.text], [200, v1.version, v1.text]);
    const againBase = await ask('base');
    assert.deepEqual([againBase.version, againBase.text], ['0', base.text]);
    assert.equal((await ask('live')).version, live.version);
    assert.equal((await ask()).version, live.version, 'the live version is unchanged by the comparison');
  });

  it('an unknown checkpoint is a 404 naming the field', async () => {
    const r = await ask('step-999999');
    assert.deepEqual([r.status, r.body.error?.param], [404, 'adapter']);
  });
});
