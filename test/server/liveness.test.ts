import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { longContextModel, postJson, readFrames, startTestServer, type TestServer } from '../helpers/testServer.js';

describe('generation runs off the HTTP thread; disconnects abort it', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ modelPath: longContextModel('llama-gqa', 4096) });
  });
  after(() => t.close());

  it('/healthz answers while a long generation is running', async () => {
    const long = postJson(`${t.url}/chat/completions`, {
      messages: [{ role: 'user', content: 'go' }],
      max_tokens: 3000,
      temperature: 1,
      seed: 1,
    });
    let sawRunning = false;
    for (let i = 0; i < 200 && !sawRunning; i++) {
      const h = (await (await fetch(`${t.origin}/healthz`)).json()) as { running: number };
      sawRunning = h.running === 1;
      if (!sawRunning) await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(sawRunning, '/healthz reported the running generation, so it answered during it');
    const r = (await (await long).json()) as { usage: { completion_tokens: number } };
    assert.ok(r.usage.completion_tokens > 0);
  });

  it('a client that disconnects mid-stream stops its generation (stored as aborted, not trainable)', async () => {
    const res = await postJson(
      `${t.url}/chat/completions`,
      { messages: [{ role: 'user', content: 'go' }], max_tokens: 3000, stream: true, temperature: 1, seed: 2 },
      { 'x-session-id': 'abort-session', 'x-turn-type': 'main' },
    );
    const reader = res.body!.getReader();
    const { ended } = await readFrames(reader, 5);
    assert.equal(ended, false, 'the stream is still running when the client leaves');
    await reader.cancel(); // the client goes away
    let turns = t.store.sessionTurns('abort-session');
    for (let i = 0; i < 400 && turns.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      turns = t.store.sessionTurns('abort-session');
    }
    assert.equal(turns.length, 1);
    assert.equal(turns[0].finishReason, 'abort');
    assert.ok(turns[0].responseIds.length < 3000, `stopped after ${turns[0].responseIds.length} tokens`);
    // The next request of the session does not link to the aborted turn.
    await postJson(
      `${t.url}/chat/completions`,
      { messages: [{ role: 'user', content: 'again' }], max_tokens: 2 },
      { 'x-session-id': 'abort-session', 'x-turn-type': 'main' },
    );
    assert.equal(t.store.sessionTurns('abort-session')[0].nextState, null);
  });
});
