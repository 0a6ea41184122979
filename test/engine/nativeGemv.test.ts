import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadNativeAddon } from '../../main/engine/backends/nativeAddon.js';
import { applyGemvPath } from '../../main/engine/backends/native/gemvPath.js';
import { GEMV_PATHS, KIND, type GemvPath, type NdAddon } from '../../main/engine/backends/native/ndAddon.js';
import { Rng } from '../../main/util/random.js';
import { assertWithinBounds, LAMBDA, tolerance, UNIT_ROUNDOFF } from '../helpers/numeric.js';
import { randomHalfWeights } from '../helpers/halfWeights.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';

/*
 * Decoding's 16-bit matrix-vector kernels (native/src/halfGemv.h), every one this CPU can run,
 * against a plain reference: the same float32 activations times the exactly widened weights,
 * summed in float64. A path the CPU lacks is skipped with the feature it needs; which paths ran is
 * in the test names and the skip lines.
 */

const SKIP = nativeSkipReason();
const nd = (): NdAddon => loadNativeAddon()!.nd;
type Dtype = 'bf16' | 'f16';

/** Why `path` cannot run here for `dtype` weights (a "requires ..." skip line), or false. */
function pathSkip(path: GemvPath, dtype: Dtype): string | false {
  if (SKIP) return SKIP;
  const why = nd().gemvUnavailable(path, KIND[dtype]);
  return why ? `requires a CPU that runs it: ${why}` : false;
}

/** Paths that apply to `dtype` weights (avx512bf16 multiplies BF16 only). */
const pathsFor = (dtype: Dtype) => GEMV_PATHS.filter((p) => dtype === 'bf16' || p !== 'avx512bf16');

interface Problem {
  x: Float32Array; // [m, k]
  bits: Uint16Array; // [n, k]
  wide: Float32Array; // the weights' exact float32 values
  m: number;
  n: number;
  k: number;
}

/** Random activations and weights of `dtype` spread over a few binades, both signs. */
function problem(dtype: Dtype, m: number, n: number, k: number, seed: number): Problem {
  const rng = new Rng(seed);
  const x = Float32Array.from({ length: m * k }, () => rng.normal());
  const { bits, wide } = randomHalfWeights(dtype, n * k, rng);
  return { x, bits, wide, m, n, k };
}

function run(path: GemvPath, dtype: Dtype, p: Problem): Float32Array {
  const a = nd();
  const y = a.gemv(path, a.bufFromArray(p.x, KIND.f32), a.bufFromArray(p.bits, KIND[dtype]), p.m, p.n, p.k);
  return a.bufRead(y, false) as Float32Array;
}

/**
 * The float64 reference, and each output's bound. Float32 accumulation: the probabilistic bound
 * of a k-term sum (helpers/numeric.ts) relative to Σ|xᵢ·wᵢ|, the magnitude its roundings are
 * relative to. The avx512bf16 path also rounds each activation to bfloat16 first: k independent,
 * centred relative errors of at most u(bfloat16), so λ·u(bfloat16)·√Σ(xᵢ·wᵢ)² more.
 */
function reference(path: GemvPath, p: Problem): { expected: Float64Array; bounds: Float64Array; why: string } {
  const f32 = tolerance({ dtype: 'float32', length: p.k });
  const expected = new Float64Array(p.m * p.n);
  const bounds = new Float64Array(p.m * p.n);
  for (let i = 0; i < p.m; i++) {
    for (let j = 0; j < p.n; j++) {
      let sum = 0;
      let abs = 0;
      let sq = 0;
      for (let t = 0; t < p.k; t++) {
        const term = p.x[i * p.k + t] * p.wide[j * p.k + t];
        sum += term;
        abs += Math.abs(term);
        sq += term * term;
      }
      expected[i * p.n + j] = sum;
      bounds[i * p.n + j] = f32.rtol * abs + (path === 'avx512bf16' ? LAMBDA * UNIT_ROUNDOFF.bfloat16 * Math.sqrt(sq) : 0) + 1e-30;
    }
  }
  const why = path === 'avx512bf16' ? `${f32.why}, plus activations rounded to bfloat16` : f32.why;
  return { expected, bounds, why };
}

// Shapes that reach every tail: k not a multiple of 8, 16 or 32; n not a multiple of the 8-row
// blocks; m covering every row grouping (1, 2, 3, 4, then 4 + 1 and 4 + 4); one product large
// enough to be split over the kernel threads.
const SHAPES: Array<[number, number, number]> = [
  [1, 27, 2061],
  [2, 19, 40],
  [3, 27, 512],
  [4, 9, 77],
  [5, 33, 300],
  [8, 11, 129],
  [1, 1000, 512],
];

for (const dtype of ['bf16', 'f16'] as const) {
  for (const path of pathsFor(dtype)) {
    describe(`16-bit GEMV, ${path} path, ${dtype} weights`, { skip: pathSkip(path, dtype) }, () => {
      for (const [m, n, k] of SHAPES) {
        it(`[${m}, ${k}] · [${n}, ${k}]ᵀ matches the float64 reference`, () => {
          const p = problem(dtype, m, n, k, m * 7919 + n * 31 + k);
          const { expected, bounds, why } = reference(path, p);
          assertWithinBounds(run(path, dtype, p), expected, bounds, `${path} ${dtype} [${m},${n},${k}]`, why);
        });
      }

      it('a NaN activation makes its own row NaN and leaves the others exact', () => {
        const p = problem(dtype, 2, 9, 40, 5);
        p.x[3] = NaN;
        const y = run(path, dtype, p);
        assert.ok(y.subarray(0, 9).every(Number.isNaN), `row 0: ${Array.from(y.subarray(0, 9))}`);
        p.x[3] = 0;
        const { expected, bounds, why } = reference(path, p);
        assertWithinBounds(y.subarray(9), expected.subarray(9), bounds.subarray(9), `${path} row 1`, why);
      });
    });
  }
}

describe('16-bit GEMV dispatch', { skip: SKIP }, () => {
  it('decoding uses the fastest path this CPU runs that keeps activations float32, for each weight dtype', () => {
    const chosen = nd().cpu().gemv;
    for (const dtype of ['bf16', 'f16'] as const) {
      const best = pathsFor(dtype).find((p) => p !== 'avx512bf16' && !nd().gemvUnavailable(p, KIND[dtype]));
      assert.equal(
        chosen[dtype],
        best,
        `${dtype}: ${pathsFor(dtype)
          .map((p) => `${p}: ${nd().gemvUnavailable(p, KIND[dtype]) || 'runs'}`)
          .join('; ')}`,
      );
    }
  });

  it("a matmul of a few rows by transposed 16-bit weights is the chosen path's product, bit for bit", () => {
    const a = nd();
    for (const dtype of ['bf16', 'f16'] as const) {
      const p = problem(dtype, 3, 21, 100, 11);
      const viaMatmul = a.bufRead(
        a.matmul(a.bufFromArray(p.x, KIND.f32), a.bufFromArray(p.bits, KIND[dtype]), 1, 3, 21, 100, false, true, 0, 0),
        false,
      );
      assert.deepEqual(viaMatmul, run(a.gemvPath(KIND[dtype]), dtype, p), dtype);
    }
  });

  it('CLAWLOOP_GEMV chooses a path, and refuses one this CPU lacks or does not know, naming why', () => {
    const a = nd();
    const before = { bf16: a.gemvPath(KIND.bf16), f16: a.gemvPath(KIND.f16) };
    try {
      assert.deepEqual(applyGemvPath(a, { CLAWLOOP_GEMV: 'scalar' }), { bf16: 'scalar', f16: 'scalar' });
      assert.throws(() => applyGemvPath(a, { CLAWLOOP_GEMV: 'neon' }), /expected one of avx512bf16, avx512f, avx2, scalar/);
      const missing = GEMV_PATHS.find((p) => a.gemvUnavailable(p, KIND.bf16));
      if (missing) {
        assert.throws(
          () => applyGemvPath(a, { CLAWLOOP_GEMV: missing }),
          new RegExp(`CLAWLOOP_GEMV=${missing}: the ${missing} path needs`),
        );
        assert.equal(a.gemvPath(KIND.bf16), 'scalar', 'a refused path changes nothing');
      }
      assert.throws(
        () => a.gemv('avx512bf16', a.bufFromArray(new Float32Array(4), KIND.f32), a.bufFromArray(new Uint16Array(4), KIND.f16), 1, 1, 4),
        /bfloat16 weights only/,
      );
    } finally {
      a.setGemvPath(KIND.bf16, before.bf16);
      a.setGemvPath(KIND.f16, before.f16);
    }
  });

  it('measures a read bandwidth with the kernel threads', () => {
    const a = loadNativeAddon()!;
    const b = a.nd.readBandwidth(32 << 20, 2);
    assert.ok(Number.isFinite(b.bytesPerSecond) && b.bytesPerSecond > 0, `${b.bytesPerSecond}`);
    assert.equal(b.bytes, 32 << 20);
    assert.equal(b.threads, a.info().threads);
    assert.throws(() => a.nd.readBandwidth(0, 1), /bytes and passes must be positive/);
  });
});
