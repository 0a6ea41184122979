import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { DecodeBatcher } from '../../main/engine/generation/decodeBatcher.js';
import { generate, generateText, type GeneratedToken, type GenerationResult } from '../../main/engine/generation/generate.js';
import { greedyAlongReferences } from '../../main/engine/generation/greedyAlong.js';
import { greedyContinuations } from '../../main/engine/generation/greedyBatch.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { logprobScale, logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { modelDir, type FixtureModel } from '../helpers/paths.js';

/** Runs a generation to its end, aborting it once it has produced `n` tokens. */
async function abortedAfter(n: number, it: AsyncGenerator<GeneratedToken, GenerationResult, void>, ac: AbortController): Promise<GenerationResult> {
  for (let produced = 0; ; ) {
    const r = await it.next();
    if (r.done) return r.value;
    if (++produced === n) ac.abort();
  }
}

const PROMPTS = [
  'hi',
  'the quick brown fox jumps over the lazy dog',
  'what is the answer?',
  'thank you, that is right. no, I meant something else. please try again.',
  'a',
];

/** Same tokens, and log-probs within the tolerance of a forward pass (batched rows vs one row). */
function same(model: Model, a: GenerationResult, b: GenerationResult, what: string): void {
  assert.deepEqual(a.tokens, b.tokens, `${what}: tokens`);
  const tol = tolerance(logprobsModel(model.config, model.config.maxPositions));
  assertClose(a.logprobs, b.logprobs, tol, `${what}: log-probs`, { scale: logprobScale(model.config, b.logprobs) });
}

for (const name of ['qwen3-qknorm', 'mistral-swa'] as FixtureModel[]) {
  describe(`continuous batching of decode steps (${name})`, () => {
    let model: Model;
    before(async () => (model = await Model.load(modelDir(name))));
    after(() => model.dispose());
    const ids = (s: string) => model.tokenizer.encode(s);

    it('sequences decoded together get the tokens and log-probs they get alone', async () => {
      const solo: GenerationResult[] = [];
      for (const p of PROMPTS)
        solo.push(await generateText(model.lm, model.tokenizer, ids(p), { temperature: 0, maxNewTokens: 10 + (p.length % 7) }));
      const baseline = tf.memory().numTensors;
      const batcher = new DecodeBatcher(model.lm);
      const together = await Promise.all(
        PROMPTS.map((p) => generateText(model.lm, model.tokenizer, ids(p), { temperature: 0, maxNewTokens: 10 + (p.length % 7), batcher })),
      );
      together.forEach((r, i) => same(model, r, solo[i], PROMPTS[i]));
      const decoded = together.reduce((s, r) => s + r.tokens.length - 1, 0);
      assert.ok(batcher.steps < decoded / 2, `${batcher.steps} batched steps for ${decoded} decoded tokens`);
      assert.equal(batcher.active, 0);
      assert.equal(tf.memory().numTensors, baseline, 'caches are freed');
    });

    it('late joiners (longer or shorter than the batch), aborts and sampling keep every sequence exact', async () => {
      const batcher = new DecodeBatcher(model.lm);
      const opts = (seed: number) => ({ temperature: 0.9, topP: 0.95, seed, maxNewTokens: 14 });
      const solo = await Promise.all(PROMPTS.map(async (p, i) => generateText(model.lm, model.tokenizer, ids(p), opts(i))));
      const ac = new AbortController();
      const runs: Array<Promise<GenerationResult>> = [];
      runs.push(generateText(model.lm, model.tokenizer, ids(PROMPTS[0]), { ...opts(0), batcher }));
      // Aborted after its third token, however fast the machine (a timer raced it to its last token).
      runs.push(abortedAfter(3, generate(model.lm, model.tokenizer, ids(PROMPTS[2]), { ...opts(2), batcher, signal: ac.signal }), ac));
      await new Promise((r) => setTimeout(r, 15));
      runs.push(generateText(model.lm, model.tokenizer, ids(PROMPTS[3]), { ...opts(3), batcher })); // longer than the batch: pads it
      await new Promise((r) => setTimeout(r, 5));
      runs.push(generateText(model.lm, model.tokenizer, ids(PROMPTS[4]), { ...opts(4), batcher })); // shorter: padded itself
      const [r0, r2, r3, r4] = await Promise.all(runs);
      same(model, r0, solo[0], 'first');
      same(model, r3, solo[3], 'late, longer');
      same(model, r4, solo[4], 'late, shorter');
      assert.equal(r2.finishReason, 'abort');
      assert.deepEqual(r2.tokens, solo[2].tokens.slice(0, r2.tokens.length));
      assert.equal(batcher.active, 0);
    });

    it('greedy continuations decoded together, prefilled in groups, are the tokens generateText gives each alone', async () => {
      const adapter = LoraAdapter.create(model.config, { r: 4 }, 3);
      for (const v of adapter.variables().values()) v.assign(tf.add(v, 0.03));
      const budget = (i: number) => [12, 1, 0, 9, 16][i];
      const solo: GenerationResult[] = [];
      for (const [i, p] of PROMPTS.entries())
        solo.push(await generateText(model.lm, model.tokenizer, ids(p), { temperature: 0, maxNewTokens: budget(i), adapter }));
      // A stop token that ends one sequence early: the third token of the first one's solo run.
      const stop = solo[0].tokens[2];
      const solo0 = await generateText(model.lm, model.tokenizer, ids(PROMPTS[0]), { temperature: 0, maxNewTokens: 12, adapter, stopTokenIds: [stop] });
      const expected = solo.map((r, i) => {
        const k = r.tokens.indexOf(stop);
        return k >= 0 ? r.tokens.slice(0, k + 1) : r.tokens;
      });
      assert.deepEqual(expected[0], solo0.tokens);
      const baseline = tf.memory().numTensors;
      const got = await greedyContinuations(
        model.lm,
        PROMPTS.map((p, i) => ({ ids: ids(p), maxNewTokens: budget(i) })),
        { stopTokenIds: [stop], adapter, prefillBatch: 2 },
      );
      assert.deepEqual(got, expected);
      assert.equal(tf.memory().numTensors, baseline, 'caches are freed');
      adapter.dispose();
    });

    it('greedy answers along references: only what parts from its reference is decoded, from where it parts, as decoding from scratch gives', async () => {
      const adapter = LoraAdapter.create(model.config, { r: 4 }, 5);
      for (const v of adapter.variables().values()) v.assign(tf.add(v, 0.01));
      const prompts = [...PROMPTS, PROMPTS[1]].map(ids);
      const budget = [12, 1, 3, 9, 16, 16];
      const greedy = (a: LoraAdapter | null, stop: number[]) =>
        greedyContinuations(model.lm, prompts.map((p, i) => ({ ids: p, maxNewTokens: budget[i] })), { stopTokenIds: stop, adapter: a });
      // A stop token that ends the answer parting at its fourth token inside the part decoded: the
      // first token of that answer, after where it parts, that it has not made before.
      const free = (await greedy(adapter, []))[0];
      const k = free.findIndex((id, j) => j > 3 && j < budget[0] - 1 && !free.slice(0, j).includes(id));
      assert.ok(k > 0, `no token of ${free} after its fourth is new to it`);
      const stop = [free[k]];
      const want = await greedy(adapter, stop);
      assert.deepEqual(want[0], free.slice(0, k + 1), 'the stop token ends the first answer after it parts');
      const other = (id: number) => (id + 1) % model.config.vocabSize;
      const refs = [
        want[0].map((id, k) => (k === 3 ? other(id) : id)), // parts at its fourth token
        (await greedy(null, stop))[1], // the base model's
        want[2].map(other), // parts at its first token
        want[3], // the policy's own: never parts
        [], // none: decoded from the prompt
        (await greedy(null, stop))[5],
      ];
      const baseline = tf.memory().numTensors;
      const got = await greedyAlongReferences(
        model.lm,
        prompts.map((p, i) => ({ promptIds: p, referenceIds: refs[i], maxTokens: budget[i] })),
        { stopTokenIds: stop, adapter, batchSize: 2 },
      );
      assert.deepEqual(got.ids, want);
      assert.equal(got.diverged, want.filter((w, i) => refs[i].length === 0 || w.join() !== refs[i].join()).length);
      assert.equal(tf.memory().numTensors, baseline, 'caches are freed');
      adapter.dispose();
    });

    it('sequences with different adapters batch separately and match their solo runs', async () => {
      const adapter = LoraAdapter.create(model.config, { r: 4 }, 7);
      for (const v of adapter.variables().values()) v.assign(tf.add(v, 0.05));
      const batcher = new DecodeBatcher(model.lm);
      const cases = PROMPTS.slice(0, 4).map((p, i) => ({ p, adapter: i % 2 ? adapter : null }));
      const solo: GenerationResult[] = [];
      for (const c of cases)
        solo.push(await generateText(model.lm, model.tokenizer, ids(c.p), { temperature: 0, maxNewTokens: 8, adapter: c.adapter }));
      const together = await Promise.all(
        cases.map((c) =>
          generateText(model.lm, model.tokenizer, ids(c.p), { temperature: 0, maxNewTokens: 8, adapter: c.adapter, batcher }),
        ),
      );
      together.forEach((r, i) => same(model, r, solo[i], `case ${i}`));
      adapter.dispose();
    });
  });
}
