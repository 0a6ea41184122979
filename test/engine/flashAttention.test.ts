import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { attention, AttentionMask, groupedAttention, tiledAttention } from '../../main/engine/model/layers/attention.js';
import { onCpuAnd, values } from '../helpers/gpuCompare.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';
import { assertClose, chained, tolerance } from '../helpers/numeric.js';

// The native backend's tiled attention (native/src/flashAttention*.cc) against the composite
// attention the pure-JS CPU backend runs for the same call (scores, additive mask, softmax,
// product with V): the output and the gradients of q, kT and v, on shapes that cross the kernel's
// tiles (32 query rows, 64 keys) and edges: GQA, odd lengths, head sizes not a multiple of 16,
// a KV-cache prefix (S > T), left padding per row (padding queries see no slot), a sliding window.

interface Case {
  name: string;
  B: number;
  H: number;
  KVH: number;
  T: number;
  S: number;
  D: number;
  /** Per row: position of the first query and left padding in the cache; perRow as the model sets it. */
  start: number[];
  pad: number[];
  perRow: boolean;
  window?: number;
}

const CASES: Case[] = [
  { name: 'one head per KV head, odd length', B: 1, H: 2, KVH: 2, T: 5, S: 5, D: 8, start: [0], pad: [0], perRow: false },
  { name: 'GQA (G = 2), batch of 2, 37 tokens', B: 2, H: 4, KVH: 2, T: 37, S: 37, D: 16, start: [0, 0], pad: [0, 0], perRow: false },
  {
    name: 'KV cache prefix: 7 queries after 70 cached slots, G = 4',
    B: 2,
    H: 4,
    KVH: 1,
    T: 7,
    S: 77,
    D: 32,
    start: [70, 70],
    pad: [0, 0],
    perRow: false,
  },
  {
    name: 'left padding per row (padding queries see nothing)',
    B: 3,
    H: 2,
    KVH: 1,
    T: 45,
    S: 45,
    D: 24,
    start: [0, -5, -13],
    pad: [0, 5, 13],
    perRow: true,
  },
  {
    name: 'rows at different positions over a padded cache',
    B: 2,
    H: 6,
    KVH: 3,
    T: 66,
    S: 86,
    D: 20,
    start: [20, 15],
    pad: [0, 5],
    perRow: true,
  },
  { name: 'sliding window of 9', B: 1, H: 2, KVH: 1, T: 70, S: 70, D: 16, start: [0], pad: [0], perRow: false, window: 9 },
  { name: 'one decoding step over 130 slots', B: 2, H: 4, KVH: 2, T: 1, S: 130, D: 32, start: [129, 120], pad: [0, 9], perRow: true },
  {
    name: 'a long prompt: 300 tokens over 4 row blocks of keys',
    B: 1,
    H: 2,
    KVH: 1,
    T: 300,
    S: 300,
    D: 32,
    start: [0],
    pad: [0],
    perRow: false,
  },
];

const t = (shape: number[], seed: number, scale = 1) =>
  tf.tensor(
    values(
      shape.reduce((a, b) => a * b, 1),
      seed,
      scale,
    ),
    shape,
  );

/** Output and gradients [out, dq, dkT, dv] of sum(attention(q, kT, v) ⊙ r) for a fixed random r. */
function outputAndGrads(c: Case): tf.Tensor[] {
  const mask = new AttentionMask(c.T, c.S, c.start, c.pad, c.window ?? null, c.perRow);
  const q = t([c.B, c.H, c.T, c.D], 11, 2) as tf.Tensor4D;
  const kT = t([c.B, c.KVH, c.D, c.S], 12, 2) as tf.Tensor4D;
  const v = t([c.B, c.KVH, c.S, c.D], 13) as tf.Tensor4D;
  const r = t([c.B, c.T, c.H * c.D], 14);
  // The kernel itself on the native backend (attention() runs it only from 32 queries on); the composite on the CPU.
  const run =
    tf.getBackend() === 'native'
      ? tiledAttention
      : (a: tf.Tensor4D, b: tf.Tensor4D, d: tf.Tensor4D) => groupedAttention(a, b, d, mask.tensor());
  const f = (a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) => run(a as tf.Tensor4D, b as tf.Tensor4D, d as tf.Tensor4D, mask);
  const out = f(q, kT, v);
  const grads = tf.grads((a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) => tf.sum(tf.mul(f(a, b, d), r)))([q, kT, v]);
  mask.dispose();
  return [out, ...grads];
}

describe('native tiled attention matches the composite attention, output and gradients', { skip: nativeSkipReason() }, () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const { cpu, other, kernels } = await onCpuAnd('native', () => outputAndGrads(c));
      await initBackend('wasm');
      assert.ok(kernels.includes('ClawFlashAttention') && kernels.includes('ClawFlashAttentionGrad'), `kernels: ${kernels}`);
      // A score is a dot product of D terms; the softmax sums S of them (its exp within 2 ulp of
      // the reference's); the output and each gradient add S (or G·T) products more.
      const out = tolerance(chained({ dtype: 'float32', length: c.D }, 4, c.S));
      const grad = tolerance(chained({ dtype: 'float32', length: c.D }, 8, Math.max(c.S, (c.H / c.KVH) * c.T)));
      ['out', 'dq', 'dkT', 'dv'].forEach((what, i) => assertClose(other[i], cpu[i], i ? grad : out, `${c.name}: ${what}`));
    });
  }

  const overridden = process.env.CLAWLOOP_TILED_ATTENTION
    ? 'requires CLAWLOOP_TILED_ATTENTION unset (it overrides the threshold this test checks)'
    : false;
  it('attention() runs it from a block of 32 queries on, the composite below and on pure tfjs', { skip: overridden }, async () => {
    const kernelsOf = async (backend: 'native' | 'cpu', c: Case) => {
      await initBackend(backend);
      const mask = new AttentionMask(c.T, c.S, c.start, c.pad, null, c.perRow);
      const shapes = [
        [c.B, c.H, c.T, c.D],
        [c.B, c.KVH, c.D, c.S],
        [c.B, c.KVH, c.S, c.D],
      ];
      const profile = await tf.profile(() => {
        const [q, kT, v] = shapes.map((s, i) => t(s, i) as tf.Tensor4D);
        tf.dispose([q, kT, v, attention(q, kT, v, mask, false)]);
      });
      mask.dispose();
      return profile.kernelNames;
    };
    const prompt = CASES[1];
    const step = CASES.find((c) => c.T === 1)!;
    assert.ok((await kernelsOf('native', prompt)).includes('ClawFlashAttention'));
    assert.ok(!(await kernelsOf('native', step)).includes('ClawFlashAttention'), 'a decoding step runs the composite');
    const pure = await kernelsOf('cpu', prompt);
    await initBackend('wasm');
    assert.ok(!pure.includes('ClawFlashAttention') && pure.includes('Softmax'), `kernels: ${pure}`);
  });
});
