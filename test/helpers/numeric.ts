import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/*
 * Tolerances for comparing two floating-point computations of the same quantity (ClawLoop against
 * PyTorch, the native backend against tfjs-wasm, a batched pass against a single one), derived from how
 * the value was computed instead of tuned to one CPU's result.
 *
 * The error model. Every floating-point operation rounds with a relative error of at most u, the
 * unit roundoff of its dtype (u = 2⁻²⁴ for float32). An output of a model is the end of a chain of
 * reductions (dot products, sums, softmax normalisers): `chain` of them in sequence, of `length`
 * terms each (their mean length, when a helper adds up a path of different reductions), so
 * n = chain · length roundings reach it. Each rounding error is
 * relative to the magnitude of the terms being summed, so the error of the output is relative to
 * the magnitude of the values it is made of (`scale`; by default the largest expected |value|, which
 * bounds them up to cancellation), not to the output itself: outputs near 0 get the same absolute
 * allowance as large ones.
 *
 * How errors add (Higham, "Accuracy and Stability of Numerical Algorithms" §3.1; Higham & Mary,
 * "A new approach to probabilistic rounding error analysis", SIAM J. Sci. Comput. 2019):
 * - worst case: they all line up, |error| ≤ γₙ · scale with γₙ = n·u / (1 − n·u). Always true, but
 *   it grows like n and is orders of magnitude above what any real kernel shows;
 * - probabilistic (the default): rounding errors are independent and centred, so they add like a
 *   random walk, |error| ≤ λ · √n · u · scale except with probability at most 2·exp(−λ²/2). That
 *   √n is why the bound depends on the reduction length and not only on the dtype: a BLAS kernel
 *   (OpenBLAS's Haswell, SkylakeX, Zen, Sandybridge... kernels, XNNPACK in tfjs-wasm, PyTorch)
 *   may sum in any order and block size, which changes each error but not this bound.
 * Two implementations that are each within that bound of the exact value differ by their two
 * independent errors: √2 times one (in quadrature). With λ = 6 one element exceeds the bound with
 * probability at most 2·e⁻¹⁸ ≈ 3·10⁻⁸ under this model, so even the largest comparison here (~10⁵
 * elements) has well under 1 % chance of a spurious failure with a given kernel; and a kernel's
 * results are deterministic, so one that passes once passes every time.
 *
 * What this does not cover, and where a call site adds what it knows: amplification by an
 * ill-conditioned step (Adam's division by √v, see adamwTolerance.ts), and a reference computed in
 * another dtype than ours (pass the coarser dtype).
 *
 *   rtol = λ · u(dtype) · √(2 · chain · length)     (probabilistic)
 *   rtol = 2 · γ(chain · length)                      (worst case)
 *   |actual − expected| ≤ atol + rtol · scale         element-wise
 */

/** Unit roundoff u of each arithmetic dtype: half the gap between 1 and the next number. */
export const UNIT_ROUNDOFF = {
  float64: 2 ** -53,
  float32: 2 ** -24,
  float16: 2 ** -11,
  bfloat16: 2 ** -8,
} as const;
export type Dtype = keyof typeof UNIT_ROUNDOFF;

/** The safety factor of the probabilistic bound (see above): P(spurious failure) ≤ 2·e^(−λ²/2). */
export const LAMBDA = 6;

/** How a compared value was computed: what a call site knows about it. */
export interface ErrorModel {
  /** The precision both computations ran in (the coarser one when they differ). */
  dtype: Dtype;
  /**
   * The length of the reductions on the path to one output (e.g. a matmul's inner dimension); for
   * a chain of different reductions, their mean length (see `chained`).
   */
  length: number;
  /** How many reductions (or rounded ops) are chained on that path. Default 1. */
  chain?: number;
  /** 'probabilistic' (default: errors add like a random walk) or 'worst' (they all line up). */
  bound?: 'probabilistic' | 'worst';
  /** An absolute floor added to the bound (e.g. for outputs whose scale may be 0). Default 0. */
  atol?: number;
}

/** A derived tolerance, and the sentence that says where it came from (shown on failure). */
export interface Tolerance {
  rtol: number;
  atol: number;
  why: string;
}

/** The tolerance for two computations of a value made as `m` says (formula in the file comment). */
export function tolerance(m: ErrorModel): Tolerance {
  const chain = m.chain ?? 1;
  if (!(m.length >= 1 && chain >= 1)) throw new Error(`tolerance: length ${m.length} and chain ${chain} must be >= 1`);
  const u = UNIT_ROUNDOFF[m.dtype];
  const n = chain * m.length;
  const worst = m.bound === 'worst';
  if (worst && n * u >= 1) throw new Error(`tolerance: ${n} roundings in ${m.dtype} can lose every digit (n·u >= 1)`);
  const rtol = worst ? (2 * n * u) / (1 - n * u) : LAMBDA * u * Math.sqrt(2 * n);
  const how = worst ? '2·γ(n)' : `λ=${LAMBDA}·u·√(2n)`;
  return { rtol, atol: m.atol ?? 0, why: `${m.dtype}, ${chain} chained reductions, n=${Math.round(n)} roundings: rtol ${how}` };
}

/**
 * The same model with `extra` more reductions of `length` terms chained after it: the roundings
 * add up (n + extra·length), kept as `chain` reductions of their mean length.
 */
export function chained(m: ErrorModel, extra: number, length = 1): ErrorModel {
  const chain = (m.chain ?? 1) + extra;
  return { ...m, length: ((m.chain ?? 1) * m.length + extra * length) / chain, chain };
}

export interface Closeness {
  maxAbs: number;
  /** max |a − e| / max |e| */
  normRel: number;
  worst: number;
}

export function closeness(actual: ArrayLike<number>, expected: ArrayLike<number>): Closeness {
  assert.equal(actual.length, expected.length, `length ${actual.length} != expected ${expected.length}`);
  let maxAbs = 0;
  let worst = -1;
  let scale = 0;
  for (let i = 0; i < expected.length; i++) {
    const d = Math.abs(actual[i] - expected[i]);
    if (!(d <= maxAbs)) {
      maxAbs = d;
      worst = i;
    }
    scale = Math.max(scale, Math.abs(expected[i]));
  }
  return { maxAbs, normRel: scale > 0 ? maxAbs / scale : maxAbs, worst };
}

export function maxAbsOf(values: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < values.length; i++) m = Math.max(m, Math.abs(values[i]));
  return m;
}

/**
 * Every element within `atol + rtol · scale` of the expected value. `scale` is the magnitude the
 * rounding errors are relative to (default: the largest expected |value|); pass the magnitude of
 * the inputs when the output can be much smaller than them (log-probs of large logits, a loss of
 * terms with both signs).
 */
export function assertClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  tol: Tolerance,
  what: string,
  opts: { scale?: number } = {},
): void {
  const c = closeness(actual, expected);
  const scale = opts.scale ?? maxAbsOf(expected);
  const bound = tol.atol + tol.rtol * scale;
  recordRatio(what, c.maxAbs, bound);
  assert.ok(
    c.maxAbs <= bound,
    `${what}: max abs error ${c.maxAbs.toExponential(2)} > bound ${bound.toExponential(2)} at index ${c.worst} ` +
      `(got ${actual[c.worst]}, expected ${expected[c.worst]}; scale ${scale.toExponential(2)}; ${tol.why})`,
  );
}

/** One number: `assertClose` for scalars. */
export function assertScalarClose(actual: number, expected: number, tol: Tolerance, what: string, opts: { scale?: number } = {}): void {
  assertClose([actual], [expected], tol, what, { scale: opts.scale ?? Math.abs(expected) });
}

/**
 * Every element within its own bound (for per-element error models such as AdamW's).
 */
export function assertWithinBounds(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  bounds: ArrayLike<number>,
  what: string,
  why: string,
): void {
  assert.equal(actual.length, expected.length, `${what}: length ${actual.length} != expected ${expected.length}`);
  let worst = 0;
  let at = -1;
  for (let i = 0; i < expected.length; i++) {
    const r = Math.abs(actual[i] - expected[i]) / bounds[i];
    if (!(r <= worst)) {
      worst = r;
      at = i;
    }
  }
  if (at >= 0) recordRatio(what, Math.abs(actual[at] - expected[at]), bounds[at]);
  assert.ok(
    worst <= 1,
    `${what}: error ${Math.abs(actual[at] - expected[at]).toExponential(2)} > bound ${Number(bounds[at]).toExponential(2)} ` +
      `at index ${at} (got ${actual[at]}, expected ${expected[at]}; ${why})`,
  );
}

/**
 * With CLAWLOOP_NUMERICS_LOG set to a file, every check appends {file, what, error, bound} to it
 * (one JSON object a line), so `npm run numerics:matrix` can report how close each suite comes to
 * its bounds under every BLAS kernel.
 */
function recordRatio(what: string, error: number, bound: number): void {
  const log = process.env.CLAWLOOP_NUMERICS_LOG;
  if (!log) return;
  const file = path.basename(process.argv[1] ?? 'unknown');
  fs.appendFileSync(log, `${JSON.stringify({ file, what, error, bound })}\n`);
}
