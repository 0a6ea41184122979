import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { gpuContext } from '../../main/engine/backends/webgpu/gpuContext.js';
import { generate, generateText, type GenerateOptions } from '../../main/engine/generation/generate.js';
import { logSoftmax, Sampler } from '../../main/engine/generation/sampling.js';
import { Model } from '../../main/engine/model/model.js';
import { countGpuCalls, type GpuCallCounts } from '../helpers/gpuCallCounts.js';
import { gpuSkipReason } from '../helpers/gpuSkip.js';
import { BF16_SHARDED, modelDir, type FixtureModel } from '../helpers/paths.js';

// Decoding outside tfjs (main/engine/backends/webgpu/decode/): the same greedy tokens as the tfjs
// path, and the WebGPU calls a token costs, counted on the device: at most 10 dispatches per layer,
// 2 submits and 64 bytes read back per token (issue 37).

const skip = await gpuSkipReason();

/** Runs `fn` with CLAWLOOP_GPU_DECODE set to `value`. */
async function withDecode<T>(value: string, fn: () => Promise<T>): Promise<T> {
  const old = process.env.CLAWLOOP_GPU_DECODE;
  process.env.CLAWLOOP_GPU_DECODE = value;
  try {
    return await fn();
  } finally {
    if (old === undefined) delete process.env.CLAWLOOP_GPU_DECODE;
    else process.env.CLAWLOOP_GPU_DECODE = old;
  }
}

/** Generates with the calls of every token after the first counted; returns the tokens and the counts per token. */
async function counted(model: Model, prompt: number[], opts: GenerateOptions): Promise<{ tokens: number[]; perToken: GpuCallCounts }> {
  const it = generate(model.lm, model.tokenizer, prompt, opts);
  const first = await it.next();
  assert.ok(!first.done);
  const c = countGpuCalls(gpuContext()!.device);
  let r = await it.next();
  while (!r.done) r = await it.next();
  c.stop();
  const n = r.value.tokens.length - 1;
  const per = (x: number) => x / n;
  return {
    tokens: r.value.tokens,
    perToken: { dispatches: per(c.counts.dispatches), submits: per(c.counts.submits), readBytes: per(c.counts.readBytes) },
  };
}

for (const name of ['qwen3-qknorm', 'llama-gqa', 'qwen2-tied', 'mistral-swa', BF16_SHARDED] as const) {
  describe(`GPU decoding outside tfjs: ${name}`, { skip }, () => {
    let model: Model;
    before(async () => (model = await Model.load(modelDir(name as FixtureModel), { backend: 'webgpu' })));
    after(() => model?.dispose());
    const prompt = [5, 9, 200, 17, 33, 41, 7, 100, 3, 250, 11];

    it('64 greedy tokens equal the tfjs path, with ≤ 10 dispatches per layer, 2 submits and 64 bytes back per token', async () => {
      const opts = { temperature: 0, maxNewTokens: 64 };
      const want = await withDecode('0', () => generateText(model.lm, model.tokenizer, prompt, opts));
      const got = await withDecode('auto', () => counted(model, prompt, opts));
      assert.deepEqual(got.tokens, want.tokens);
      const L = model.config.numLayers;
      assert.ok(got.perToken.dispatches > 0, 'the decoder dispatched nothing: the GPU path did not run');
      assert.ok(got.perToken.dispatches <= 10 * L, `${got.perToken.dispatches} dispatches per token for ${L} layers`);
      assert.ok(got.perToken.submits <= 2, `${got.perToken.submits} submits per token`);
      assert.ok(got.perToken.readBytes <= 64, `${got.perToken.readBytes} bytes read back per token`);
    });

    it('log-probs of the greedy tokens match the tfjs path', async () => {
      const opts = { temperature: 0, maxNewTokens: 8 };
      const want = await withDecode('0', () => generateText(model.lm, model.tokenizer, prompt, opts));
      const got = await withDecode('auto', () => generateText(model.lm, model.tokenizer, prompt, opts));
      assert.deepEqual(got.tokens, want.tokens);
      got.logprobs.forEach((lp, i) => assert.ok(Math.abs(lp - want.logprobs[i]) < 1e-3, `token ${i}: ${lp} vs ${want.logprobs[i]}`));
    });
  });
}

describe('GPU sampling', { skip }, () => {
  let model: Model;
  before(async () => (model = await Model.load(modelDir('qwen3-qknorm'), { backend: 'webgpu' })));
  after(() => model?.dispose());
  const prompt = [5, 9, 200, 17, 33];
  const run = (opts: GenerateOptions) =>
    withDecode('auto', () => generateText(model.lm, model.tokenizer, prompt, { maxNewTokens: 12, ...opts }));

  it('top-k 1 and a tiny top-p are greedy; the same seed draws the same tokens', async () => {
    const greedy = (await run({ temperature: 0 })).tokens;
    assert.deepEqual((await run({ temperature: 1, topK: 1, seed: 3 })).tokens, greedy);
    assert.deepEqual((await run({ temperature: 1, topP: 1e-6, seed: 4 })).tokens, greedy);
    const a = await run({ temperature: 1.5, seed: 7 });
    assert.deepEqual((await run({ temperature: 1.5, seed: 7 })).tokens, a.tokens);
    assert.notDeepEqual(a.tokens, greedy, 'temperature 1.5 drew the greedy tokens 12 times in a row');
  });

  for (const sampling of [
    { temperature: 2, topK: 3, seed: 11 },
    { temperature: 1, topP: 0.6, seed: 5 },
  ]) {
    it(`${JSON.stringify(sampling)} draws only what the CPU Sampler keeps, with its log-probs`, async () => {
      const r = await run(sampling);
      // Every position's logits on the tfjs path, in one forward pass over the prompt and the draws.
      const ids = [...prompt, ...r.tokens];
      const logits = (await tf.tidy(() => model.lm.forward(tf.tensor2d(ids, [1, ids.length], 'int32'))).data()) as Float32Array;
      const V = model.config.vocabSize;
      const cpu = new Sampler(sampling);
      r.tokens.forEach((id, i) => {
        const step = logits.subarray((prompt.length - 1 + i) * V, (prompt.length + i) * V);
        const kept = [...cpu.support(step).ids];
        assert.ok(kept.includes(id), `step ${i}: drew ${id}, not among ${kept}`);
        const lp = logSoftmax(step)[id];
        assert.ok(Math.abs(r.logprobs[i] - lp) < 1e-3, `step ${i}: log-prob ${r.logprobs[i]} vs ${lp}`);
      });
    });
  }
});
