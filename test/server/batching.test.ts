import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureConfig } from '../helpers/fixtures.js';
import { KIND } from '../../main/engine/backends/native/ndAddon.js';
import { loadNativeAddon } from '../../main/engine/backends/nativeAddon.js';
import { bf16RoundingModel, logprobScale, logprobsModel, SBGEMM_ROUNDINGS } from '../helpers/modelTolerance.js';
import { assertClose, tolerance, type ErrorModel } from '../helpers/numeric.js';
import { postJson, startTestServer, type TestServer } from '../helpers/testServer.js';

/**
 * How far a row of a batched step may be from the same sequence decoded alone. Alone, a decode
 * step's products are matrix-vector ones; where the CPU has AVX512-BF16, the native backend's
 * kernel for BF16 weights (`vdpbf16ps`) rounds the activations to bfloat16 on the way in, as
 * PyTorch's BF16 matmul does, while a batch's products keep them float32: the two then differ by
 * bfloat16 roundings, not float32 ones.
 */
function batchVsAlone(config: ReturnType<typeof fixtureConfig>): ErrorModel {
  const nd = process.env.CLAWLOOP_BACKEND && process.env.CLAWLOOP_BACKEND !== 'native' ? null : loadNativeAddon()?.nd;
  if (nd?.gemvPath(KIND.bf16) === 'avx512bf16') return bf16RoundingModel(config, SBGEMM_ROUNDINGS.perLayer, SBGEMM_ROUNDINGS.extra);
  return logprobsModel(config, config.maxPositions);
}

type Completion = { choices: Array<{ message: { content: string }; logprobs: { content: Array<{ logprob: number }> } }> };

describe('concurrent requests are decoded as one batch', () => {
  let t: TestServer;
  before(async () => (t = await startTestServer({ options: { maxBatch: 4 } })));
  after(() => t.close());

  const ask = async (i: number) => {
    const res = await postJson(`${t.url}/chat/completions`, {
      messages: [{ role: 'user', content: `question number ${i}: ${'why '.repeat(i)}` }],
      max_tokens: 12,
      temperature: 0,
      logprobs: true,
    });
    assert.equal(res.status, 200);
    return (await res.json()) as Completion;
  };

  it('gives every request what it gets alone, with up to --max-batch running at once', async () => {
    const alone: Completion[] = [];
    for (let i = 0; i < 6; i++) alone.push(await ask(i));
    let peak = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const h = (await (await fetch(`${t.origin}/healthz`)).json()) as { running: number };
        peak = Math.max(peak, h.running);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const together = await Promise.all([0, 1, 2, 3, 4, 5].map(ask));
    watching = false;
    await watch;
    // A row of a batched decode step against the same sequence decoded alone (the default model,
    // qwen3-qknorm, within its 256 positions).
    const config = fixtureConfig('qwen3-qknorm');
    const tol = tolerance(batchVsAlone(config));
    together.forEach((c, i) => {
      assert.equal(c.choices[0].message.content, alone[i].choices[0].message.content, `request ${i}`);
      const want = alone[i].choices[0].logprobs.content.map((e) => e.logprob);
      const got = c.choices[0].logprobs.content.map((e) => e.logprob);
      assertClose(got, want, tol, `request ${i} log-probs`, { scale: logprobScale(config, want) });
    });
    assert.ok(peak > 1 && peak <= 4, `peak running ${peak}`);
  });
});
