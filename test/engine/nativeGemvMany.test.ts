import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { loadNativeAddon } from '../../main/engine/backends/nativeAddon.js';
import type { NativeBackend } from '../../main/engine/backends/native/nativeBackend.js';
import { GEMV_PATHS, KIND, type NdAddon } from '../../main/engine/backends/native/ndAddon.js';
import { FUSED, runFused } from '../../main/engine/ops/fusedKernels.js';
import { Rng } from '../../main/util/random.js';
import { randomHalfWeights } from '../helpers/halfWeights.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';

/*
 * Several 16-bit GEMVs of one input in one pass of the kernel threads (halfGemvMany, behind the
 * fused projectMany op decoding uses for a layer's q/k/v and gate/up projections): each output
 * must be the single GEMV's, bit for bit, on every path this CPU runs (the single GEMV is checked
 * against a float64 reference in nativeGemv.test.ts).
 */

const SKIP = nativeSkipReason();
const nd = (): NdAddon => loadNativeAddon()!.nd;
type Dtype = 'bf16' | 'f16';

/** Random x [m, k] and weights [n_i, k] of `dtype`, as buffers. */
function problem(a: NdAddon, dtype: Dtype, m: number, ns: number[], k: number, seed: number) {
  const rng = new Rng(seed);
  const x = a.bufFromArray(
    Float32Array.from({ length: m * k }, () => rng.normal()),
    KIND.f32,
  );
  const ws = ns.map((n) => a.bufFromArray(randomHalfWeights(dtype, n * k, rng).bits, KIND[dtype]));
  return { x, ws };
}

// Parts that end mid-block (27, 9 rows) and one large enough to be split over the threads; k not
// a multiple of 32; every row grouping of m.
const CASES: Array<[number, number[], number]> = [
  [1, [27, 9, 1000], 2061],
  [2, [8, 19], 40],
  [3, [1000, 5], 512],
  [5, [33, 11, 64], 300],
];

for (const dtype of ['bf16', 'f16'] as const) {
  describe(`16-bit GEMV of several weights at once, ${dtype} weights`, { skip: SKIP }, () => {
    for (const path of GEMV_PATHS.filter((p) => dtype === 'bf16' || p !== 'avx512bf16')) {
      const why = SKIP ? '' : nd().gemvUnavailable(path, KIND[dtype]);
      it(
        `${path}: each output is that weight's own GEMV, bit for bit`,
        { skip: why ? `requires a CPU that runs it: ${why}` : false },
        () => {
          const a = nd();
          const before = a.gemvPath(KIND[dtype]);
          a.setGemvPath(KIND[dtype], path);
          try {
            for (const [m, ns, k] of CASES) {
              const { x, ws } = problem(a, dtype, m, ns, k, m * 31 + k);
              const many = a.gemvMany(x, ws, m, k).map((y) => a.bufRead(y, false));
              ns.forEach((n, i) =>
                assert.deepEqual(many[i], a.bufRead(a.gemv(path, x, ws[i], m, n, k), false), `[${m}, ${k}] · [${n}, ${k}]ᵀ`),
              );
            }
          } finally {
            a.setGemvPath(KIND[dtype], before);
          }
        },
      );
    }
  });
}

describe('16-bit GEMV of several weights: arguments', { skip: SKIP }, () => {
  it('refuses weights of two kinds, or a weight whose size is no multiple of k', () => {
    const a = nd();
    const x = a.bufFromArray(new Float32Array(8), KIND.f32);
    const bf = a.bufFromArray(new Uint16Array(16), KIND.bf16);
    const f16 = a.bufFromArray(new Uint16Array(16), KIND.f16);
    assert.throws(() => a.gemvMany(x, [bf, f16], 1, 8), /one 16-bit kind/);
    assert.throws(() => a.gemvMany(x, [a.bufFromArray(new Uint16Array(12), KIND.bf16)], 1, 8), /one 16-bit kind, \[n, k\]/);
  });
});

describe('projectMany on the native backend', { skip: SKIP }, () => {
  it('gives the separate products x·Wᵀ bit for bit, for 16-bit and for float32 weights', async () => {
    await initBackend('native');
    const backend = tf.backend() as NativeBackend;
    const rng = new Rng(3);
    const [m, k] = [2, 96];
    const x = tf.tensor2d(
      Float32Array.from({ length: m * k }, () => rng.normal()),
      [m, k],
    );
    const half = (n: number) => {
      const buf = backend.nd.bufFromArray(randomHalfWeights('bf16', n * k, rng).bits, KIND.bf16);
      return tf.engine().makeTensorFromTensorInfo(backend.makeOutput(buf, [n, k], 'float32', KIND.bf16));
    };
    const plain = (n: number) =>
      tf.tensor2d(
        Float32Array.from({ length: n * k }, () => rng.normal()),
        [n, k],
      );
    for (const ws of [
      [half(40), half(17), half(17)],
      [plain(12), plain(5)],
    ]) {
      const fused = runFused<tf.Tensor[]>(FUSED.projectMany, { x, ...Object.fromEntries(ws.map((w, i) => [`w${i}`, w])) });
      ws.forEach((w, i) => {
        assert.deepEqual(fused[i].shape, [m, w.shape[0]]);
        assert.deepEqual(fused[i].dataSync(), tf.matMul(x, w, false, true).dataSync(), `weight ${i}`);
      });
    }
    await initBackend('wasm');
  });
});
