import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { activationBytes, useCheckpointing } from '../../main/engine/training/layerwise.js';
import { computeGradients, crossEntropyLoss, type LossFn, type TrainBatch } from '../../main/engine/training/train.js';
import { chunkRows } from '../../main/engine/training/vocabStats.js';
import { Rng } from '../../main/util/random.js';
import { gradientModel, lossModel } from '../helpers/modelTolerance.js';
import { assertClose, assertScalarClose, chained, maxAbsOf, tolerance } from '../helpers/numeric.js';
import { modelDir } from '../helpers/paths.js';

/**
 * The two things that keep training within memory for real model sizes must not change what is
 * computed: activation checkpointing (layers recomputed in the backward pass) and the fused
 * vocabulary statistics (no [N, V] logits for the whole batch).
 */
describe('training memory: checkpointing and fused vocabulary statistics', () => {
  let model: Model;
  before(async () => (model = await Model.load(modelDir('qwen2-tied'))));
  after(() => model.dispose());
  const batch = (): TrainBatch => {
    const ids = [model.tokenizer.encode('the quick brown fox jumps'), model.tokenizer.encode('hello world! what is the answer?')];
    return { ids, mask: ids.map((s) => s.map((_, t) => (t > 1 ? 1 : 0))), weights: ids.map((s) => s.map((_, t) => 1 + (t % 3))) };
  };
  const T = () => Math.max(...batch().ids.map((s) => s.length));
  const tokens = () => batch().ids.flat().length;

  /** Loss and gradients both ways, compared within the tolerance of a gradient of this model. */
  async function sameBothWays(target: () => Parameters<typeof computeGradients>[3], lossFn: LossFn, seed?: number, lora = 0) {
    const run = (checkpoint: boolean) => computeGradients(model.lm, batch(), lossFn, target(), { checkpoint, rng: seed ? new Rng(seed) : undefined });
    const whole = await run(false);
    const layered = await run(true);
    assertScalarClose(layered.loss, whole.loss, tolerance(lossModel(model.config, T(), tokens(), { loraRank: lora })), 'loss');
    const tol = tolerance(gradientModel(model.config, T(), tokens(), { loraRank: lora }));
    assert.deepEqual([...layered.grads.keys()].sort(), [...whole.grads.keys()].sort());
    for (const [name, g] of whole.grads) assertClose(layered.grads.get(name)!.dataSync(), g.dataSync(), tol, `grad ${name}`);
    [...whole.grads.values(), ...layered.grads.values()].forEach((g) => g.dispose());
  }

  it('LoRA with dropout: checkpointing recomputes the same masks, loss and gradients', async () => {
    const a = LoraAdapter.create(model.config, { r: 4, dropout: 0.3 }, 3);
    for (const v of a.variables().values()) v.assign(tf.add(v, 0.05));
    await sameBothWays(() => ({ adapter: a }), crossEntropyLoss, 11, 4);
    // Once more, now that derived caches exist (a tied head's transpose on wasm): nothing is left behind.
    const before = tf.memory().numTensors;
    (await computeGradients(model.lm, batch(), crossEntropyLoss, { adapter: a }, { checkpoint: true })).grads.forEach((g) => g.dispose());
    assert.equal(tf.memory().numTensors, before, 'no tensor left behind');
    a.dispose();
  });

  it('full fine-tuning (tied embedding reached twice): the same loss and gradients', async () => {
    model.lm.setTrainable(true);
    try {
      await sameBothWays(() => 'full', crossEntropyLoss);
    } finally {
      model.lm.setTrainable(false);
    }
  });

  it("the fused log-probs and entropy equal the materialised log-softmax's, value and gradient", async () => {
    const a = LoraAdapter.create(model.config, { r: 4 }, 5);
    for (const v of a.variables().values()) v.assign(tf.add(v, 0.05));
    const fused: LossFn = ({ logprobs, entropy, mask }) => tf.sum(tf.mul(tf.add(logprobs, tf.mul(entropy, 0.3)), mask)) as tf.Scalar;
    const materialised: LossFn = ({ logSoftmax, targets, mask }) => {
      const V = logSoftmax.shape[1];
      const N = logSoftmax.shape[0];
      const at = tf.add(tf.mul(tf.range(0, N, 1, 'int32'), tf.scalar(V, 'int32')), targets);
      const lp = tf.gather(tf.reshape(logSoftmax, [-1]), at);
      const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logSoftmax), logSoftmax), 1));
      return tf.sum(tf.mul(tf.add(lp, tf.mul(entropy, 0.3)), mask)) as tf.Scalar;
    };
    const x = await computeGradients(model.lm, batch(), fused, { adapter: a });
    const y = await computeGradients(model.lm, batch(), materialised, { adapter: a });
    const m = { loraRank: 4 };
    assertScalarClose(x.loss, y.loss, tolerance(lossModel(model.config, T(), tokens(), m)), 'loss', { scale: Math.abs(y.loss) + tokens() * Math.log(model.config.vocabSize) });
    // Both are rounded versions of the same sums, reached through the same upstream gradients
    // (dlogits, dh): errors are relative to those, so to the largest gradient of the set rather than
    // to each tensor's own largest element (a small tensor's elements are cancellations of larger terms).
    const scale = Math.max(...[...y.grads.values()].map((g) => maxAbsOf(g.dataSync())));
    const tol = tolerance(chained(gradientModel(model.config, T(), tokens(), m), 2, model.config.vocabSize));
    for (const [name, g] of y.grads) assertClose(x.grads.get(name)!.dataSync(), g.dataSync(), tol, `grad ${name}`, { scale });
    [...x.grads.values(), ...y.grads.values()].forEach((g) => g.dispose());
    a.dispose();
  });

  it('chunks the vocabulary statistics by rows, and checkpoints by default only when activations would not fit', () => {
    assert.equal(chunkRows(151_936, 4096), 110, '64 MB of logits per chunk for a Qwen3 vocabulary');
    assert.equal(chunkRows(320, 50), 50);
    const qwen17 = { ...model.config, hiddenSize: 2048, intermediateSize: 6144, numHeads: 16, numLayers: 28 };
    assert.ok(activationBytes(qwen17, 1, 1024) > 4e9, 'a 1.7B model at 1,024 tokens would keep GBs of activations');
    assert.equal(useCheckpointing('auto', qwen17, 1, 1024), activationBytes(qwen17, 1, 1024) > os.totalmem() / 4);
    assert.equal(useCheckpointing('auto', model.config, 2, 12), false);
    assert.equal(useCheckpointing(true, model.config, 2, 12), true);
  });
});
