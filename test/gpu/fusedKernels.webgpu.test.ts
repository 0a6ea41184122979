import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { attention, AttentionMask } from '../../main/engine/model/layers/attention.js';
import { addLoraUpdate } from '../../main/engine/model/layers/loraUpdate.js';
import { matmul } from '../../main/engine/model/layers/matmul.js';
import { rmsNorm } from '../../main/engine/model/layers/rmsNorm.js';
import { ropeHeads } from '../../main/engine/model/layers/rope.js';
import { swiglu } from '../../main/engine/model/layers/swiglu.js';
import { logSoftmax, targetLogprobs } from '../../main/engine/ops/logSoftmax.js';
import { adamwUpdate } from '../../main/engine/training/adamwUpdate.js';
import { gpuSkipReason } from '../helpers/gpuSkip.js';
import { onBoth, values, withTranscendentals } from '../helpers/gpuCompare.js';
import { assertClose, chained, tolerance } from '../helpers/numeric.js';

// Every GPU kernel against the CPU backend's composite ops, within tolerances derived from each
// kernel's reductions (numeric.ts), and every fused kernel's gradient against tfjs's gradient of
// the composite. Shapes are tiny: the software adapter is slow.

const t = (shape: number[], seed: number, scale = 1) => tf.tensor(values(shape.reduce((a, b) => a * b, 1), seed, scale), shape);
const f32 = { dtype: 'float32' as const };

describe('GPU kernels match the CPU backend', { skip: await gpuSkipReason() }, () => {
  it('matmul: tiled (every transpose), GEMV (few rows), batched and broadcast', async () => {
    const cases: Array<[number[], number[], boolean, boolean]> = [
      [[70, 33], [33, 130], false, false],
      [[33, 70], [33, 130], true, false],
      [[70, 33], [130, 33], false, true],
      [[33, 70], [130, 33], true, true],
      [[3, 40], [40, 300], false, false], // GEMV
      [[3, 40], [300, 40], false, true], // GEMV against a transposed B (a tied LM head)
      [[2, 3, 17, 40], [2, 3, 40, 9], false, false],
      [[4, 5, 16], [16, 72], false, false],
    ];
    for (const [i, [sa, sb, ta, tb]] of cases.entries()) {
      const r = await onBoth(() => tf.matMul(t(sa, 10 + i), t(sb, 20 + i), ta, tb));
      const K = ta ? sa[sa.length - 2] : sa[sa.length - 1];
      assertClose(r.gpu[0], r.cpu[0], tolerance({ ...f32, length: K }), `matmul ${sa}·${sb} ${ta}/${tb}`, { scale: K });
      assert.ok(r.kernels.includes('BatchMatMul'));
    }
  });

  it('reads float32 tensors that tfjs keeps in integer buffers (a cast from bool or int32)', async () => {
    const r = await onBoth(() => {
      const onehot = tf.cast(tf.equal(tf.reshape(tf.tensor1d([0, 0, 1, 1, 1], 'int32'), [-1, 1]), tf.range(0, 2, 1, 'int32')), 'float32');
      return [tf.matMul(t([1, 5], 60), onehot), rmsNorm(tf.cast(tf.tensor1d([1, -2, 3], 'int32'), 'float32'), t([3], 61), 1e-6)];
    });
    assertClose(r.gpu[0], r.cpu[0], tolerance({ ...f32, length: 5 }), 'matmul by a cast one-hot');
    assertClose(r.gpu[1], r.cpu[1], tolerance({ ...f32, length: 3, chain: 2 }), 'rms norm of a cast int32');
  });

  it('RMSNorm', async () => {
    const r = await onBoth(() => rmsNorm(t([5, 37], 1, 3), t([37], 2), 1e-6));
    assert.ok(r.kernels.includes('ClawRmsNorm'), `kernels: ${r.kernels}`);
    assertClose(r.gpu[0], r.cpu[0], tolerance({ ...f32, length: 37, chain: 2 }), 'rms norm');
  });

  it('RoPE with the head transpose, for queries and transposed keys, shared and per-row positions', async () => {
    const x = () => t([2, 5, 3, 8], 3);
    for (const keysT of [false, true]) {
      for (const perRow of [false, true]) {
        const shape = perRow ? [2, 1, 5, 4] : [5, 4];
        const r = await onBoth(() => ropeHeads(x() as tf.Tensor4D, t(shape, 4), t(shape, 5), keysT));
        assert.ok(r.kernels.includes('ClawRope'));
        assertClose(r.gpu[0], r.cpu[0], tolerance({ ...f32, length: 2 }), `rope keysT=${keysT} perRow=${perRow}`);
      }
    }
  });

  it('SwiGLU', async () => {
    const r = await onBoth(() => swiglu(t([7, 33], 6, 4), t([7, 33], 7)));
    assert.ok(r.kernels.includes('ClawSwiGlu'));
    assertClose(r.gpu[0], r.cpu[0], tolerance(withTranscendentals({ ...f32, length: 3 }, 1, 4)), 'swiglu');
  });

  it('log-softmax and target log-probs (log-sum-exp over the vocabulary)', async () => {
    const V = 50;
    const targets = [3, 0, 49, 17, 8, 22];
    const r = await onBoth(() => [logSoftmax(t([6, V], 8, 5) as tf.Tensor2D), targetLogprobs(t([6, V], 8, 5) as tf.Tensor2D, targets)]);
    assert.ok(r.kernels.includes('ClawLogSoftmax') && r.kernels.includes('ClawTargetLogprob'));
    const tol = tolerance(withTranscendentals({ ...f32, length: V, chain: 2 }, 2, 10));
    assertClose(r.gpu[0], r.cpu[0], tol, 'log softmax', { scale: 10 });
    assertClose(r.gpu[1], r.cpu[1], tol, 'target log-probs', { scale: 10 });
  });

  it('LoRA update added to the base projection', async () => {
    const r = await onBoth(() => addLoraUpdate(t([6, 20], 9), t([6, 4], 10), t([4, 20], 11), 2.5));
    assert.ok(r.kernels.includes('ClawLoraAdd'));
    assertClose(r.gpu[0], r.cpu[0], tolerance({ ...f32, length: 4, chain: 2 }), 'lora', { scale: 10 });
  });

  it('AdamW: first step (no moments) and a later one, with clipping and weight decay', async () => {
    const rule = { beta1: 0.9, beta2: 0.98, eps: 1e-8, coef: 0.5, decay: 1 - 1e-3 * 0.1, sqrtBc2: Math.sqrt(1 - 0.98 ** 2), step: 1e-3 / (1 - 0.9 ** 2) };
    for (const first of [true, false]) {
      const r = await onBoth(() =>
        adamwUpdate(t([300], 12), t([300], 13, 0.1), first ? null : t([300], 14, 0.01), first ? null : tf.abs(t([300], 15, 0.001)), rule),
      );
      assert.ok(r.kernels.includes('ClawAdamW'));
      // Element-wise: ~10 roundings per element (the update rule), relative to each output's size.
      for (const [i, what] of ['p', 'm', 'v'].entries()) assertClose(r.gpu[i], r.cpu[i], tolerance({ ...f32, length: 10 }), `adamw ${what} (first=${first})`);
    }
  });
});

describe('GPU attention (flash-style) matches the composite attention', { skip: await gpuSkipReason() }, () => {
  // q [B, H, T, D]; keys/values of S slots; rows at their own positions with left padding.
  const run = (B: number, H: number, KVH: number, T: number, S: number, D: number, start: number[], pad: number[], window: number | null) =>
    onBoth(() => {
      const mask = new AttentionMask(T, S, start, pad, window, true);
      return attention(t([B, H, T, D], 30, 2) as tf.Tensor4D, t([B, KVH, D, S], 31, 2) as tf.Tensor4D, t([B, KVH, S, D], 32) as tf.Tensor4D, mask, false);
    });
  const cases: Array<[string, Parameters<typeof run>]> = [
    ['prefill, GQA 4/2, no cache', [2, 4, 2, 9, 9, 8, [0, 0], [0, 0], null]],
    ['prefill after a cache, sliding window 4', [1, 4, 1, 5, 12, 16, [7], [0], 4]],
    ['decode, left-padded rows at different positions', [3, 4, 2, 1, 20, 8, [19, 5, 11], [0, 14, 8], null]],
    ['decode, head size 128, 33 keys (blocks of 16 and a tail)', [1, 2, 1, 1, 33, 128, [32], [0], null]],
    ['prefill of 40 queries, 3 query blocks per KV head', [1, 2, 2, 40, 40, 32, [0], [0], null]],
    // As greedyContinuations prefills: rows left-padded in a fresh cache, starting at −pad.
    ['left-padded prefill, rows from negative positions', [3, 4, 2, 20, 20, 8, [-16, -3, 0], [16, 3, 0], null]],
    ['left-padded prefill, sliding window 5', [2, 2, 1, 18, 18, 16, [-17, -6], [17, 6], 5]],
  ];
  for (const [name, args] of cases) {
    it(name, async () => {
      const r = await run(...args);
      assert.ok(r.kernels.includes('ClawAttention'), `kernels: ${r.kernels}`);
      const [B, H, , T, S, D, start] = args;
      // Padding queries (negative positions) are read by no one: the kernel writes 0 for them.
      for (let b = 0; b < B; b++)
        for (let t = 0; t < T && start[b] + t < 0; t++) r.cpu[0].fill(0, (b * T + t) * H * D, (b * T + t + 1) * H * D);
      // scores (D), softmax normaliser (S), probabilities · V (S); exp with arguments up to ~2·D.
      const tol = tolerance(withTranscendentals(chained({ ...f32, length: D }, 2, S), 1, 8));
      assertClose(r.gpu[0], r.cpu[0], tol, name);
    });
  }
});

describe('gradients of the fused kernels match the composite', { skip: await gpuSkipReason() }, () => {
  const grads = (f: (...xs: tf.Tensor[]) => tf.Tensor, shapes: number[][]) =>
    onBoth(() => {
      const xs = shapes.map((s, i) => t(s, 40 + i));
      const g = tf.grads((...a: tf.Tensor[]) => tf.sum(tf.mul(f(...a), t(f(...xs).shape, 99))))(xs);
      return g;
    });
  const cases: Array<[string, (...xs: tf.Tensor[]) => tf.Tensor, number[][], number]> = [
    ['RMSNorm', (x, w) => rmsNorm(x, w, 1e-6), [[4, 24], [24]], 24],
    ['RoPE (keys, transposed)', (x, c, s) => ropeHeads(x as tf.Tensor4D, c, s, true), [[2, 3, 2, 8], [3, 4], [3, 4]], 4],
    ['SwiGLU', (g, u) => swiglu(g, u), [[5, 12], [5, 12]], 4],
    ['log-softmax', (x) => logSoftmax(x as tf.Tensor2D), [[4, 30]], 30],
    ['target log-probs', (x) => targetLogprobs(x as tf.Tensor2D, [1, 29, 0, 7]), [[4, 30]], 30],
    ['LoRA update', (y, xa, b) => addLoraUpdate(y, xa, b, 2), [[6, 10], [6, 3], [3, 10]], 6],
  ];
  for (const [name, f, shapes, length] of cases) {
    it(name, async () => {
      const r = await grads(f, shapes);
      r.gpu.forEach((g, i) => assertClose(g, r.cpu[i], tolerance(withTranscendentals({ ...f32, length, chain: 3 }, 2, 4)), `${name}: d/d input ${i}`, { scale: 4 }));
    });
  }
});

it('matmul keeps its custom gradient on the GPU', { skip: await gpuSkipReason() }, async () => {
  const r = await onBoth(() => tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(matmul(a, b)))([t([9, 14], 50), t([14, 6], 51)]));
  r.gpu.forEach((g, i) => assertClose(g, r.cpu[i], tolerance({ ...f32, length: 14 }), `d/d ${i ? 'b' : 'a'}`, { scale: 14 }));
});
