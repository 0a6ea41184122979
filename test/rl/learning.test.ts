import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TrainingStatus } from '../../main/protocol/training.js';
import { api, chat, postJson, sharpenedModel, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

const PROMPT = 'say one word';
const MAX_STEPS = 30; // the bound on steps

describe('learning through the HTTP API', () => {
  let t: TestServer;
  before(async () => {
    // Sharpened logits: a random model is near-uniform, and the test needs a token the model picks
    // now and then (about 1 in 10): rare enough to start below 0.2, common enough to get 👍.
    // lr 1e-3: Adam moves every LoRA weight by about lr per step, which on a 64-wide model with
    // logits scaled by 5 is already a large change (1e-2 overshoots into another token).
    t = await startTestServer({
      modelPath: sharpenedModel('qwen3-qknorm', 5),
      train: { method: 'rl', batch_size: 4, learning_rate: 1e-3, kl_coef: 0, max_staleness: null },
    });
  });
  after(() => t.close());

  const status = async () => (await api<TrainingStatus>(t, 'GET', '/api/training/status')).body;
  /** P(first response token = chosen) under the live adapter, from the probe's top-20 log-probs (0 when not in the top 20). */
  async function probability(chosen: string): Promise<number> {
    const c = await chat(t, PROMPT, { maxTokens: 1, logprobs: true });
    const e = c.body.choices[0].logprobs!.content[0].top_logprobs.find((x) => JSON.stringify(x.bytes) === chosen);
    return e ? Math.exp(e.logprob) : 0;
  }

  it('👍 when the first token is the chosen one, 👎 otherwise: its probability rises from below 0.2 to above 0.6', async () => {
    const first = await chat(t, PROMPT, { maxTokens: 1, logprobs: true });
    const candidates = first.body.choices[0].logprobs!.content[0].top_logprobs.filter((e) => e.bytes !== null && e.bytes.length > 0);
    // A token the untrained model picks now and then: the one closest to 1 in 10.
    const target = candidates.reduce((best, e) =>
      Math.abs(Math.exp(e.logprob) - 0.1) < Math.abs(Math.exp(best.logprob) - 0.1) ? e : best,
    );
    const chosen = JSON.stringify(target.bytes);
    const p0 = await probability(chosen);
    assert.ok(p0 < 0.2, `starts below 0.2 (${p0})`);
    const curve = [p0];
    let n = 0;
    for (let step = 1; step <= MAX_STEPS && curve.at(-1)! <= 0.6; step++) {
      for (let i = 0; i < 4; i++) {
        const c = await chat(t, PROMPT, { session: `learn-${n++}`, type: 'main', maxTokens: 1, logprobs: true, temperature: 1, seed: n });
        const got = JSON.stringify(c.body.choices[0].logprobs!.content[0].bytes);
        const r = await api(t, 'POST', '/v1/feedback', { completion_id: c.id, rating: got === chosen ? 'up' : 'down' });
        assert.equal(r.status, 200);
      }
      await waitFor(async () => (await status()).step >= step, `step ${step}`);
      curve.push(await probability(chosen));
    }
    const last = curve.at(-1)!;
    assert.ok(last > 0.6, `after ${curve.length - 1} steps P = ${last.toFixed(3)} (curve ${curve.map((p) => p.toFixed(2)).join(' ')})`);
    console.log(`learning curve over ${curve.length - 1} steps: ${curve.map((p) => p.toFixed(2)).join(' ')}`);
  });

  it('a client streaming without pause while 3 steps run sees no error and adapter versions never go back', async () => {
    const start = (await status()).step;
    let stop = false;
    const versions: number[] = [];
    const failures: string[] = [];
    const client = (async () => {
      for (let i = 0; !stop; i++) {
        const res = await postJson(`${t.url}/chat/completions`, {
          messages: [{ role: 'user', content: `stream ${i}` }],
          max_tokens: 12,
          stream: true,
          seed: i,
        });
        const text = await res.text();
        if (res.status !== 200 || !text.endsWith('data: [DONE]\n\n') || text.includes('"error"'))
          failures.push(`${res.status}: ${text.slice(-200)}`);
        versions.push(Number(res.headers.get('x-clawloop-adapter-version')));
      }
    })();
    let n = 0;
    for (let s = 1; s <= 3; s++) {
      for (let i = 0; i < 4; i++) {
        const c = await chat(t, `busy ${n}`, { session: `busy-${n++}`, type: 'main', maxTokens: 2 });
        await api(t, 'POST', '/v1/feedback', { completion_id: c.id, rating: i % 2 ? 'up' : 'down' });
      }
      await waitFor(async () => (await status()).step >= start + s, `step ${start + s}`);
    }
    await new Promise((r) => setTimeout(r, 100));
    stop = true;
    await client;
    assert.deepEqual(failures, []);
    assert.ok(versions.length >= 3, `${versions.length} streamed requests`);
    for (let i = 1; i < versions.length; i++) assert.ok(versions[i] >= versions[i - 1], `version went back: ${versions.join(',')}`);
    assert.ok(versions.at(-1)! > versions[0], `the stream saw new versions: ${versions.join(',')}`);
  });
});
