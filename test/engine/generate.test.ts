import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { ContextLengthError, generate, generateText } from '../../main/engine/generation/generate.js';
import { Model } from '../../main/engine/model/model.js';
import { expected } from '../helpers/fixtures.js';
import { logprobScale, logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { FIXTURE_MODELS, modelDir } from '../helpers/paths.js';

/** Greedy decoding without a cache: a full forward pass over the whole sequence per token. */
function greedyNoCache(model: Model, prompt: number[], n: number): number[] {
  const ids = [...prompt];
  for (let i = 0; i < n; i++) {
    const next = tf.tidy(() => {
      const logits = model.lm.forward(tf.tensor2d(ids, [1, ids.length], 'int32'), { lastOnly: true });
      return tf.argMax(tf.reshape(logits, [-1])).dataSync()[0];
    });
    ids.push(next);
  }
  return ids.slice(prompt.length);
}

for (const name of FIXTURE_MODELS) {
  describe(`greedy decoding: ${name}`, () => {
    let model: Model;
    before(async () => (model = await Model.load(modelDir(name))));
    after(() => model.dispose());

    it('20 tokens with the KV cache equal 20 tokens without it and PyTorch', async () => {
      const e = expected(name);
      const res = await generateText(model.lm, model.tokenizer, e.greedy_prompt, { temperature: 0, maxNewTokens: 20 });
      assert.deepEqual(res.tokens, e.greedy, 'KV-cache greedy vs PyTorch');
      assert.deepEqual(greedyNoCache(model, e.greedy_prompt, 20), e.greedy, 'no-cache greedy vs PyTorch');
      assert.equal(res.finishReason, 'length');
      assert.equal(res.logprobs.length, 20);
      assert.ok(res.logprobs.every((lp) => lp <= 0 && Number.isFinite(lp)));
    });
  });
}

describe('generation options', () => {
  let model: Model;
  before(async () => (model = await Model.load(modelDir('qwen3-qknorm'))));
  after(() => model.dispose());
  const prompt = () => model.tokenizer.encode('hello world! what is the answer?');

  it('the same seed gives the same sampled text; another seed differs', async () => {
    const run = (seed: number) => generateText(model.lm, model.tokenizer, prompt(), { temperature: 1, maxNewTokens: 24, seed });
    const [a, b, c] = [await run(7), await run(7), await run(8)];
    assert.deepEqual(a.tokens, b.tokens);
    assert.equal(a.text, b.text);
    assert.notDeepEqual(a.tokens, c.tokens);
  });

  it('log-probs of sampled tokens equal teacher-forced scoring of the same ids', async () => {
    const { scoreResponses } = await import('../../main/engine/generation/score.js');
    const res = await generateText(model.lm, model.tokenizer, prompt(), { temperature: 0.8, topP: 0.9, maxNewTokens: 16, seed: 3 });
    const [scored] = await scoreResponses(model.lm, [{ promptIds: prompt(), responseIds: res.tokens }]);
    // One token at a time through the KV cache against one pass over the whole sequence.
    const tol = tolerance(logprobsModel(model.config, prompt().length + res.tokens.length));
    assertClose(res.logprobs, scored.logprobs, tol, 'sampled vs scored log-probs', { scale: logprobScale(model.config, scored.logprobs) });
  });

  it('greedyTokens gives the top-1 of scoring and the tokens greedy decoding picks, in any batch', async () => {
    const { greedyTokens, scoreResponses } = await import('../../main/engine/generation/score.js');
    const prompts = ['hello world! what is the answer?', 'a', 'the quick brown fox'].map((t) => model.tokenizer.encode(t));
    const items = [];
    for (const p of prompts) {
      const res = await generateText(model.lm, model.tokenizer, p, { temperature: 0, maxNewTokens: 12 });
      items.push({ promptIds: p, responseIds: res.tokens });
    }
    // A response the model would not write: its argmaxes differ from it somewhere.
    items.push({ promptIds: prompts[0], responseIds: [...items[2].responseIds].reverse() });
    const scored = await scoreResponses(model.lm, items, { topK: 1, batchSize: 4 });
    for (const batchSize of [1, 2, 8]) {
      const picked = await greedyTokens(model.lm, items, { batchSize });
      items.forEach((it, i) => assert.deepEqual([...picked[i]], scored[i].top!.map((t) => t[0].id), `item ${i}, batches of ${batchSize}`));
      // Greedy decoding is a function of these argmaxes: each generated response is its own argmax path.
      for (let i = 0; i < 3; i++) assert.deepEqual([...picked[i]], items[i].responseIds, `greedy response ${i}`);
    }
    assert.notDeepEqual([...(await greedyTokens(model.lm, items))[3]], items[3].responseIds);
    // An empty response has no positions to read; its neighbours keep their places.
    const withEmpty = await greedyTokens(model.lm, [items[0], { promptIds: prompts[1], responseIds: [] }, items[1]]);
    assert.deepEqual(withEmpty.map((t) => t.length), [items[0].responseIds.length, 0, items[1].responseIds.length]);
    assert.deepEqual([...withEmpty[2]], items[1].responseIds);
  });

  it('stop token ids end generation and are recorded but not in the text', async () => {
    const first = await generateText(model.lm, model.tokenizer, prompt(), { temperature: 0, maxNewTokens: 6 });
    const stopAt = first.tokens[3];
    const res = await generateText(model.lm, model.tokenizer, prompt(), { temperature: 0, maxNewTokens: 6, stopTokenIds: [stopAt] });
    const cut = first.tokens.indexOf(stopAt);
    assert.deepEqual(res.tokens, first.tokens.slice(0, cut + 1));
    assert.equal(res.finishReason, 'stop');
    assert.deepEqual(res.stoppedBy, { tokenId: stopAt });
    assert.equal(res.text, model.tokenizer.decode(first.tokens.slice(0, cut), { skipSpecialTokens: true }));
  });

  it('stop strings cut the text before the stop string, and streamed deltas never include it', async () => {
    // Sampling from a random model gives varied bytes; the same seed replays the same tokens, so a
    // string taken from the free run must stop the second run.
    const opts = { temperature: 1, maxNewTokens: 40, seed: 11 };
    const free = await generateText(model.lm, model.tokenizer, prompt(), opts);
    const at = Array.from({ length: free.text.length }, (_, i) => i).find(
      (i) => i >= 4 && !free.text.slice(i, i + 2).includes('\uFFFD') && free.text.length >= i + 2,
    );
    assert.ok(at !== undefined, `need two clean characters in ${JSON.stringify(free.text)}`);
    const stop = free.text.slice(at, at + 2);
    const deltas: string[] = [];
    const it = generate(model.lm, model.tokenizer, prompt(), { ...opts, stopStrings: ['never-appears', stop] });
    let r = await it.next();
    while (!r.done) {
      deltas.push(r.value.text);
      r = await it.next();
    }
    const res = r.value;
    assert.equal(res.finishReason, 'stop');
    assert.deepEqual(res.stoppedBy, { string: stop });
    assert.equal(res.text, free.text.slice(0, free.text.indexOf(stop)));
    assert.equal(deltas.join(''), res.text);
    assert.deepEqual(res.tokens, free.tokens.slice(0, res.tokens.length));
  });

  it('an AbortSignal stops generation between tokens', async () => {
    const ac = new AbortController();
    const it = generate(model.lm, model.tokenizer, prompt(), { temperature: 1, maxNewTokens: 200, seed: 1, signal: ac.signal });
    let n = 0;
    let r = await it.next();
    while (!r.done) {
      if (++n === 3) ac.abort();
      r = await it.next();
    }
    assert.equal(r.value.finishReason, 'abort');
    assert.equal(r.value.tokens.length, 3);
  });

  it('top log-probs list the most likely alternatives, sorted, including greedy choices', async () => {
    const it = generate(model.lm, model.tokenizer, prompt(), { temperature: 0, maxNewTokens: 4, topLogprobs: 5 });
    for (let r = await it.next(); !r.done; r = await it.next()) {
      const top = r.value.top!;
      assert.equal(top.length, 5);
      for (let i = 1; i < top.length; i++) assert.ok(top[i - 1].logprob >= top[i].logprob);
      assert.equal(top[0].id, r.value.id, 'greedy picks the most likely token');
      assert.ok(Math.abs(top[0].logprob - r.value.logprob) < 1e-6);
    }
  });

  it('a prompt that fills the context is refused with ContextLengthError', async () => {
    const long = new Array(model.config.maxPositions).fill(5);
    await assert.rejects(generateText(model.lm, model.tokenizer, long, { maxNewTokens: 1 }), ContextLengthError);
  });

  it('maxNewTokens is clamped to the remaining context', async () => {
    const ids = new Array(model.config.maxPositions - 3).fill(5);
    const res = await generateText(model.lm, model.tokenizer, ids, { temperature: 0, maxNewTokens: 50 });
    assert.equal(res.tokens.length, 3);
    assert.equal(res.finishReason, 'length');
  });
});
