import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { maskedSoftmax } from '../../main/engine/model/layers/attention.js';
import { rmsNorm } from '../../main/engine/model/layers/rmsNorm.js';
import { ropeHeads } from '../../main/engine/model/layers/rope.js';
import { swiglu } from '../../main/engine/model/layers/swiglu.js';
import { onCpuAnd, values } from '../helpers/gpuCompare.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';
import { assertClose, chained, tolerance } from '../helpers/numeric.js';

// The native backend's fused kernels (ops/fusedKernels.ts) against the composite tfjs ops the CPU
// backend runs for the same call: forward values and the gradient of every input, which on the
// native backend go through its backward kernels (ops/fusedGradients.ts).

const t = (shape: number[], seed: number, scale = 1) => tf.tensor(values(shape.reduce((a, b) => a * b, 1), seed, scale), shape);
const f32 = { dtype: 'float32' as const };

/** f on 'cpu' (composite) and 'native' (fused), read back, with the kernels the native run used; wasm active after. */
async function onBoth(f: () => tf.Tensor | tf.Tensor[]): Promise<{ cpu: Float32Array[]; native: Float32Array[]; kernels: string[] }> {
  const { cpu, other, kernels } = await onCpuAnd('native', f);
  await initBackend('wasm');
  return { cpu, native: other, kernels };
}

/** Value and the gradient of every input of sum(f(...xs) ⊙ r), for a fixed random r. */
const withGrads = (f: (...xs: tf.Tensor[]) => tf.Tensor, shapes: number[][]) => () => {
  const xs = shapes.map((s, i) => t(s, 40 + i));
  const r = t(f(...xs).shape, 99);
  return [f(...xs), ...tf.grads((...a: tf.Tensor[]) => tf.sum(tf.mul(f(...a), r)))(xs)];
};

describe('native fused kernels match the composite ops, value and gradients', { skip: nativeSkipReason() }, () => {
  const cases: Array<[string, (...xs: tf.Tensor[]) => tf.Tensor, number[][], number, string]> = [
    ['RMSNorm', (x, w) => rmsNorm(x, w, 1e-6), [[4, 24], [24]], 24, 'ClawRmsNorm'],
    ['RoPE (queries)', (x, c, s) => ropeHeads(x as tf.Tensor4D, c, s, false), [[2, 3, 2, 8], [3, 4], [3, 4]], 4, 'ClawRope'],
    ['RoPE (keys, transposed)', (x, c, s) => ropeHeads(x as tf.Tensor4D, c, s, true), [[2, 3, 2, 8], [3, 4], [3, 4]], 4, 'ClawRope'],
    ['RoPE (per-row positions)', (x, c, s) => ropeHeads(x as tf.Tensor4D, c, s, true), [[2, 3, 2, 8], [2, 1, 3, 4], [2, 1, 3, 4]], 4, 'ClawRope'],
    ['SwiGLU', (g, u) => swiglu(g, u), [[5, 12], [5, 12]], 4, 'ClawSwiGlu'],
  ];
  for (const [name, f, shapes, length, kernel] of cases) {
    it(name, async () => {
      const r = await onBoth(withGrads(f, shapes));
      assert.ok(r.kernels.includes(kernel), `kernels: ${r.kernels}`);
      r.native.forEach((g, i) => assertClose(g, r.cpu[i], tolerance({ ...f32, length, chain: 4 }), `${name}: ${i ? `d/d input ${i - 1}` : 'value'}`, { scale: 4 }));
    });
  }

  it('masked softmax: the mask shared by the query heads of a KV head, one mask or one per row; gradient of the scores', async () => {
    const [B, K, G, T, S] = [2, 2, 3, 4, 6];
    const masks = [() => tf.tensor2d(values(T * S, 7).map((v) => (v < -0.5 ? -1e9 : 0)), [T, S]), () => tf.tensor4d(values(B * T * S, 8).map((v) => (v < -0.5 ? -1e9 : 0)), [B, 1, T, S])];
    for (const mask of masks) {
      const r = await onBoth(() => {
        const m = mask();
        return withGrads((s) => maskedSoftmax(s as tf.Tensor4D, m as tf.Tensor2D, 0.3), [[B, K, G * T, S]])();
      });
      assert.ok(r.kernels.includes('ClawMaskedSoftmax'), `kernels: ${r.kernels}`);
      const tol = tolerance(chained({ ...f32, length: S }, 3, S));
      r.native.forEach((g, i) => assertClose(g, r.cpu[i], tol, `masked softmax ${i ? 'd/ds' : 'value'}`, { scale: 4 }));
    }
  });
});
