import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import type { LossInputs } from '../../main/engine/training/train.js';
import { tokenAdvantages } from '../../main/rl/advantages.js';
import { perSampleMean, policyLoss, type PolicyLossConfig } from '../../main/engine/training/policyLoss.js';
import { assertClose, assertScalarClose, chained, tolerance, type ErrorModel } from '../helpers/numeric.js';
import { FIXTURES } from '../helpers/paths.js';

interface LossCase {
  name: string;
  config: PolicyLossConfig;
  numSamples: number;
  logits: number[][];
  targets: number[];
  sample: number[];
  mask: number[];
  old: number[];
  advantages: number[];
  ref: number[];
  teacherTopIds?: number[][];
  teacherTopLogprobs?: number[][];
  rklWeight?: number[];
  loss: number;
  grad_logits: number[][];
  metrics: Record<string, number>;
}
const fixture = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'rl', 'losses.json'), 'utf8')) as {
  losses: LossCase[];
  advantages: Array<{
    reward: number | null;
    teacher: number[] | null;
    old: number[];
    wRl: number;
    wOpd: number;
    opdClip: number | null;
    rlSkipConfident?: number | null;
    expected: number[];
  }>;
};

/** LossInputs as computeGradients builds them, from a case's raw rows. */
function inputsOf(c: LossCase, logits: tf.Tensor2D): LossInputs {
  const N = c.targets.length;
  const V = c.logits[0].length;
  const logSoftmax = tf.logSoftmax(logits) as tf.Tensor2D;
  const flat = tf.tensor1d(
    c.targets.map((t, n) => n * V + t),
    'int32',
  );
  const extra: Record<string, tf.Tensor1D> = { old: tf.tensor1d(c.old), ref: tf.tensor1d(c.ref) };
  const extraVectors: Record<string, tf.Tensor2D> = {};
  if (c.rklWeight) {
    extra.rklWeight = tf.tensor1d(c.rklWeight);
    extraVectors.teacherTopIds = tf.tensor2d(c.teacherTopIds!);
    extraVectors.teacherTopLogprobs = tf.tensor2d(c.teacherTopLogprobs!);
  }
  return {
    logprobs: tf.gather(tf.reshape(logSoftmax, [-1]), flat) as tf.Tensor1D,
    entropy: tf.neg(tf.sum(tf.mul(tf.exp(logSoftmax), logSoftmax), 1)) as tf.Tensor1D,
    logprobsAt: (ids: tf.Tensor2D) => {
      const rows = tf.mul(tf.reshape(tf.range(0, N, 1, 'int32'), [N, 1]), tf.scalar(V, 'int32'));
      const at = tf.reshape(tf.add(rows, tf.cast(ids, 'int32')), [-1]);
      return tf.reshape(tf.gather(tf.reshape(logSoftmax, [-1]), at), ids.shape) as tf.Tensor2D;
    },
    logits,
    logSoftmax,
    targets: tf.tensor1d(c.targets, 'int32'),
    sample: tf.tensor1d(c.sample, 'int32'),
    numSamples: c.numSamples,
    mask: tf.tensor1d(c.mask),
    weights: tf.tensor1d(c.advantages),
    extra,
    extraVectors,
  };
}

/**
 * The loss's path from the logits: log-softmax (V), gather, ratio exp(log p − old), clip, min and
 * products, the KL/entropy/top-K terms, a mean per sample (N) and over samples: 8 links, none
 * longer than max(N, V). Its gradient adds the same chain backwards.
 */
function lossPath(c: LossCase): ErrorModel {
  return { dtype: 'float32', length: Math.max(c.targets.length, c.logits[0].length), chain: 8 };
}

/**
 * What the loss's rounding errors are relative to: its per-token terms |A|·ratio (ratio =
 * exp(log p − old), in float64 from the fixture) and the O(1) KL, entropy and drift terms, not the
 * mean, whose terms of both signs cancel.
 */
function termScale(c: LossCase): number {
  let top = 1;
  c.logits.forEach((row, n) => {
    const m = Math.max(...row);
    const lse = m + Math.log(row.reduce((s, x) => s + Math.exp(x - m), 0));
    top = Math.max(top, Math.abs(c.advantages[n]) * Math.exp(row[c.targets[n]] - lse - c.old[n]));
  });
  return top;
}

describe('policy losses match PyTorch', () => {
  before(async () => {
    await initBackend('wasm');
  });
  for (const c of fixture.losses) {
    it(c.name, async () => {
      const { fn, takeMetrics } = policyLoss(c.config);
      const logits = tf.tensor2d(c.logits);
      const { value, grads } = tf.valueAndGrads((l: tf.Tensor) => fn(inputsOf(c, l as tf.Tensor2D)))([logits]);
      const tol = tolerance(lossPath(c));
      const scale = termScale(c);
      assertScalarClose(value.dataSync()[0], c.loss, tol, 'loss', { scale });
      const gradPath = lossPath(c);
      assertClose(grads[0].dataSync(), c.grad_logits.flat(), tolerance(chained(gradPath, gradPath.chain!)), 'd loss / d logits');
      const m = (await takeMetrics()) as unknown as Record<string, number>;
      for (const [k, v] of Object.entries(c.metrics)) assertScalarClose(m[k], v, tol, `metric ${k}`, { scale });
      tf.dispose([value, ...grads, logits]);
    });
  }

  it('an empty batch has loss 0; a sample without masked tokens does not count', () => {
    assert.equal(perSampleMean(tf.tensor1d([]), tf.tensor1d([]), tf.tensor1d([], 'int32'), 0).dataSync()[0], 0);
    const v = perSampleMean(tf.tensor1d([2, 4, 100]), tf.tensor1d([1, 1, 0]), tf.tensor1d([0, 0, 1], 'int32'), 2).dataSync()[0];
    assert.equal(v, 3, 'sample 1 has no masked tokens and is left out of the mean');
  });

  it('asks for the data it needs', () => {
    const c = fixture.losses[0];
    const logits = tf.tensor2d(c.logits);
    const x = inputsOf(c, logits);
    assert.throws(() => policyLoss({ ...c.config, klCoef: 0.1 }).fn({ ...x, extra: { old: x.extra.old } }), /needs extra\.ref/);
    assert.throws(() => policyLoss({ ...c.config, topKReverseKl: true }).fn(x), /top-K reverse KL needs/);
    assert.throws(() => policyLoss(c.config).fn({ ...x, extra: {} }), /needs extra\.old/);
  });
});

describe('advantages match the reference', () => {
  fixture.advantages.forEach((c, i) => {
    it(`case ${i}: reward ${c.reward}, teacher ${c.teacher ? 'yes' : 'no'}, clip ${c.opdClip}, w ${c.wRl}/${c.wOpd}, skip confident ${c.rlSkipConfident ?? 'off'}`, () => {
      const got = tokenAdvantages(
        { reward: c.reward, teacherLogprobs: c.teacher, oldLogprobs: c.old },
        { wRl: c.wRl, wOpd: c.wOpd, opdClip: c.opdClip, rlSkipConfident: c.rlSkipConfident ?? null },
      );
      // A handful of float64 operations per token on both sides (weight, difference, clip, sum).
      assertClose(got, c.expected, tolerance({ dtype: 'float64', length: 1, chain: 4 }), 'advantages');
    });
  });

  it('non-finite log-probs give zero advantage instead of NaN', () => {
    const a = tokenAdvantages(
      { reward: null, teacherLogprobs: [-1, -Infinity, NaN], oldLogprobs: [-2, -1, -1] },
      { wRl: 1, wOpd: 1, opdClip: null },
    );
    assert.deepEqual(a, [1, 0, 0]);
    assert.throws(
      () => tokenAdvantages({ reward: 1, teacherLogprobs: [0], oldLogprobs: [0, 0] }, { wRl: 1, wOpd: 1, opdClip: null }),
      /cover 1 tokens/,
    );
  });
});
