import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadNativeAddon } from '../../main/engine/backends/nativeAddon.js';
import { halfGemmMode } from '../../main/engine/backends/native/halfGemmMode.js';
import { HALF_GEMM, KIND, type HalfGemm, type NdAddon } from '../../main/engine/backends/native/ndAddon.js';
import { Rng } from '../../main/util/random.js';
import { assertWithinBounds, tolerance } from '../helpers/numeric.js';
import { randomHalfWeights } from '../helpers/halfWeights.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';

/*
 * Products of float32 activations with 16-bit weights over many rows (prefill and training's
 * forward and input-gradient products of frozen weights), on each float32 path this CPU runs:
 * `packed` (the addon's GEMM that widens inside its packing, native/src/halfGemmPacked.h) and
 * `widen` (panels widened for OpenBLAS). Both against a float64 reference of the exactly widened
 * weights, for every transpose combination, with shapes that reach every tail of the packing.
 */

const SKIP = nativeSkipReason();
const nd = (): NdAddon => loadNativeAddon()!.nd;
type Dtype = 'bf16' | 'f16';

function packedSkip(): string | false {
  if (SKIP) return SKIP;
  return nd().cpu().features.packedGemm ? false : 'requires an x86-64 CPU with AVX2 and FMA (the packed kernel)';
}

interface Problem {
  a: Float32Array; // [m, k], or [k, m] with ta
  bits: Uint16Array; // [k, n], or [n, k] with tb
  wide: Float32Array; // the weights' exact float32 values
  m: number;
  n: number;
  k: number;
  ta: boolean;
  tb: boolean;
}

function problem(dtype: Dtype, [m, n, k]: [number, number, number], ta: boolean, tb: boolean, seed: number): Problem {
  const rng = new Rng(seed);
  const a = Float32Array.from({ length: m * k }, () => rng.normal());
  const { bits, wide } = randomHalfWeights(dtype, n * k, rng);
  return { a, bits, wide, m, n, k, ta, tb };
}

function run(mode: HalfGemm, dtype: Dtype, p: Problem): Float32Array {
  const x = nd();
  x.setHalfGemm(HALF_GEMM[mode]);
  const c = x.matmul(x.bufFromArray(p.a, KIND.f32), x.bufFromArray(p.bits, KIND[dtype]), 1, p.m, p.n, p.k, p.ta, p.tb, 0, 0);
  return x.bufRead(c, false) as Float32Array;
}

/** The float64 product, and each output's float32 bound relative to Σ|aᵢ·bᵢ| (helpers/numeric.ts). */
function reference(p: Problem): { expected: Float64Array; bounds: Float64Array; why: string } {
  const f32 = tolerance({ dtype: 'float32', length: p.k });
  const expected = new Float64Array(p.m * p.n);
  const bounds = new Float64Array(p.m * p.n);
  for (let i = 0; i < p.m; i++) {
    for (let j = 0; j < p.n; j++) {
      let sum = 0;
      let abs = 0;
      for (let t = 0; t < p.k; t++) {
        const term = p.a[p.ta ? t * p.m + i : i * p.k + t] * p.wide[p.tb ? j * p.k + t : t * p.n + j];
        sum += term;
        abs += Math.abs(term);
      }
      expected[i * p.n + j] = sum;
      bounds[i * p.n + j] = f32.rtol * abs + 1e-30;
    }
  }
  return { expected, bounds, why: f32.why };
}

// m past the 6-row micro-tiles and the 96-row blocks; n past the 16-column panels and a thread
// task; k past the 256-deep slices and not a multiple of 8 (the transposing packer's tail).
const SHAPES: Array<[number, number, number]> = [
  [9, 16, 8],
  [13, 35, 300],
  [100, 70, 517],
  [201, 300, 64],
  [37, 520, 259],
];

describe('16-bit GEMM over many rows (prefill, training)', { skip: SKIP }, () => {
  const before = SKIP ? 'widen' : nd().cpu().halfGemm;
  after(() => SKIP || nd().setHalfGemm(HALF_GEMM[before]));

  for (const mode of ['packed', 'widen'] as const) {
    describe(`the ${mode} path`, { skip: mode === 'packed' && packedSkip() }, () => {
      for (const dtype of ['bf16', 'f16'] as const) {
        for (const [ta, tb] of [
          [false, true],
          [false, false],
          [true, false],
          [true, true],
        ]) {
          const ops = `${ta ? 'Aᵀ' : 'A'}·${tb ? 'Bᵀ' : 'B'}`;
          it(`${ops} with ${dtype} B matches the float64 reference on every shape`, () => {
            for (const shape of SHAPES) {
              const p = problem(dtype, shape, ta, tb, shape[0] * 7919 + shape[1] * 31 + shape[2]);
              const { expected, bounds, why } = reference(p);
              assertWithinBounds(run(mode, dtype, p), expected, bounds, `${mode} ${dtype} ${ops} [${shape}]`, why);
            }
          });
        }
      }

      it('a NaN activation makes its own row NaN and leaves the others finite', () => {
        const p = problem('bf16', [14, 40, 300], false, true, 5);
        p.a[3 * 300 + 7] = NaN;
        const c = run(mode, 'bf16', p);
        assert.ok(c.subarray(3 * 40, 4 * 40).every(Number.isNaN), `row 3: ${Array.from(c.subarray(120, 160))}`);
        assert.ok(c.subarray(0, 3 * 40).every(Number.isFinite) && c.subarray(4 * 40).every(Number.isFinite), 'other rows stay finite');
      });
    });
  }

  it('CLAWLOOP_BF16_GEMM picks the path, and an unknown one is refused with the valid names', () => {
    assert.equal(halfGemmMode(nd(), { CLAWLOOP_BF16_GEMM: 'widen' }), 'widen');
    assert.throws(() => halfGemmMode(nd(), { CLAWLOOP_BF16_GEMM: 'fast' }), /expected packed, widen or sbgemm/);
    const f = nd().cpu().features;
    if (f.packedGemm) assert.equal(halfGemmMode(nd(), { CLAWLOOP_BF16_GEMM: 'packed' }), 'packed');
    else assert.throws(() => halfGemmMode(nd(), { CLAWLOOP_BF16_GEMM: 'packed' }), /AVX2 and FMA/);
    if (!f.blasSbgemm) assert.throws(() => halfGemmMode(nd(), { CLAWLOOP_BF16_GEMM: 'sbgemm' }), /no cblas_sbgemm/);
  });
});
