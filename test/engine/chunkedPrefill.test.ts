import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { generateText } from '../../main/engine/generation/generate.js';
import { PrefixCache } from '../../main/engine/generation/prefixCache.js';
import { PREFILL_CHUNK } from '../../main/engine/generation/tokenSteps.js';
import { Model } from '../../main/engine/model/model.js';
import { logprobScale, logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { longContextModel } from '../helpers/testServer.js';

/** Greedy tokens and their log-probs, each from one forward pass over the whole sequence (no cache). */
function greedyInOnePass(model: Model, prompt: number[], n: number): { tokens: number[]; logprobs: number[] } {
  const ids = [...prompt];
  const logprobs: number[] = [];
  for (let i = 0; i < n; i++) {
    const [id, lp] = tf.tidy(() => {
      const logits = tf.reshape(model.lm.forward(tf.tensor2d(ids, [1, ids.length], 'int32'), { lastOnly: true }), [-1]);
      const best = tf.argMax(logits).dataSync()[0];
      return [best, tf.logSoftmax(logits).dataSync()[best]];
    });
    ids.push(id);
    logprobs.push(lp);
  }
  return { tokens: ids.slice(prompt.length), logprobs };
}

// A prompt longer than one prefill chunk is computed in pieces that continue in the KV cache; what
// the model says must not depend on where the pieces end, nor on a cached prefix ending inside one.
describe('prompts longer than a prefill chunk (qwen3-qknorm)', () => {
  let model: Model;
  before(async () => (model = await Model.load(longContextModel('qwen3-qknorm', 2048))));
  after(() => model.dispose());

  it('give the tokens and log-probs of one pass over the whole prompt', async () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i}: the quick brown fox ${i % 7 ? 'jumps' : 'sleeps'}.`).join('\n');
    const prompt = model.tokenizer.encode(text).slice(0, PREFILL_CHUNK + 300);
    assert.equal(prompt.length, PREFILL_CHUNK + 300, 'the prompt spans two chunks');
    const want = greedyInOnePass(model, prompt, 2);
    const tol = tolerance(logprobsModel(model.config, prompt.length));
    const key = { adapter: null, version: 0 };
    const cache = new PrefixCache(256 << 20);
    const check = async (reused: number) => {
      const got = await generateText(model.lm, model.tokenizer, prompt, { temperature: 0, maxNewTokens: 2, prefixCache: cache });
      assert.equal(got.cachedPromptTokens, reused);
      assert.deepEqual(got.tokens, want.tokens, `greedy tokens, ${reused} tokens reused`);
      assertClose(got.logprobs, want.logprobs, tol, `log-probs, ${reused} tokens reused`, {
        scale: logprobScale(model.config, want.logprobs),
      });
    };
    await check(0);
    // Then from a cached prefix of 100 tokens: the rest is still two chunks, the first one shifted.
    const reuse = 100;
    const whole = cache.take(prompt, key)!;
    cache.clear();
    cache.put(prompt.slice(0, reuse), whole.share(reuse), key);
    whole.dispose();
    await check(reuse);
    cache.dispose();
  });
});
