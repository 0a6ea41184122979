import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { generateText } from '../../main/engine/generation/generate.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { scoreResponses } from '../../main/engine/generation/score.js';
import { computeGradients, crossEntropyLoss } from '../../main/engine/training/train.js';
import { modelDir } from '../helpers/paths.js';

describe('no tensor leaks', () => {
  let model: Model;
  before(async () => (model = await Model.load(modelDir('qwen3-qknorm'))));
  after(() => model.dispose());

  it('50 generations and 20 training steps leave tf.memory().numTensors at its baseline', async () => {
    const prompt = model.tokenizer.encode('hello world! what is the answer?');
    // Warm-up: the first inference builds the cached transpose of the tied embedding (a cache, not a leak).
    await generateText(model.lm, model.tokenizer, prompt, { maxNewTokens: 1 });
    const baseline = tf.memory().numTensors;
    const adapter = LoraAdapter.create(model.config, { r: 4 }, 1);
    const opt = new AdamW(adapter.variables(), { lr: 1e-3 });

    const perGeneration: number[] = [];
    for (let i = 0; i < 50; i++) {
      const before = tf.memory().numTensors;
      const stop = i % 5 === 0 ? { stopStrings: ['e'] } : {};
      await generateText(model.lm, model.tokenizer, prompt, {
        maxNewTokens: 8,
        seed: i,
        topLogprobs: i % 2 ? 3 : 0,
        adapter: i % 2 ? adapter : null,
        ...stop,
      });
      perGeneration.push(tf.memory().numTensors - before);
    }
    assert.deepEqual(perGeneration, new Array(50).fill(0), 'tensors left behind by a generation');

    const ids = [prompt, model.tokenizer.encode('the quick brown fox')];
    const batch = { ids, mask: ids.map((s) => s.map((_, t) => (t > 0 ? 1 : 0))) };
    await opt.apply((await computeGradients(model.lm, batch, crossEntropyLoss, { adapter })).grads); // creates the optimizer's moments
    const afterFirstStep = tf.memory().numTensors;
    for (let i = 0; i < 20; i++) {
      const { grads } = await computeGradients(model.lm, batch, crossEntropyLoss, { adapter });
      await opt.apply(grads);
      assert.equal(tf.memory().numTensors, afterFirstStep, `tensors left behind by training step ${i}`);
    }
    await scoreResponses(model.lm, [{ promptIds: prompt, responseIds: ids[1] }], { adapter, topK: 5 });
    assert.equal(tf.memory().numTensors, afterFirstStep, 'tensors left behind by scoring');

    opt.dispose();
    adapter.dispose();
    assert.equal(tf.memory().numTensors, baseline);
  });

  it('a full fine-tuning step with a tied head does not leak either', async () => {
    const ids = [model.tokenizer.encode('hello world')];
    const batch = { ids, mask: ids.map((s) => s.map((_, t) => (t > 0 ? 1 : 0))) };
    model.lm.setTrainable(true);
    const opt = new AdamW(model.lm.parameters(), { lr: 1e-5 });
    await opt.apply((await computeGradients(model.lm, batch, crossEntropyLoss, 'full')).grads);
    model.lm.weightsChanged();
    const n = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) {
      await opt.apply((await computeGradients(model.lm, batch, crossEntropyLoss, 'full')).grads);
      model.lm.weightsChanged();
    }
    assert.equal(tf.memory().numTensors, n);
    opt.dispose();
    model.lm.setTrainable(false);
  });
});
