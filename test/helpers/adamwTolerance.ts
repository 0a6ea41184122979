import { tolerance, type Dtype } from './numeric.js';

/*
 * How far AdamW parameters may honestly drift from a reference run, element by element.
 *
 * Why a per-element bound. AdamW moves each parameter by lr · u with u = m̂ / (√v̂ + ε): every
 * element's step is divided by that element's own gradient RMS. A gradient error δ (a few ulps of
 * the tensor's largest entry, from a kernel that sums in another order) is nothing next to a large
 * gradient, but an element whose true gradient is itself only a few ulps of the largest sees δ as a
 * change of its own size: u moves by O(1) and the parameter by O(lr). That is what
 * test/engine/train.test.ts saw on AVX-512 machines (and on AVX2 ones under OpenBLAS's Sandybridge,
 * Nehalem, Core2 and Prescott kernels): llama-gqa's gate_proj.lora_A[147] has gradient −1.5e−7
 * next to a largest entry of 3.6e−2; the kernels compute it 4e−9 to 8e−9 apart (1–2 ulps of the
 * largest entry), and its parameter after one step moves by up to 5e−5 (lr = 1e−2). No tolerance
 * that is uniform over the tensor can be both safe there and tight elsewhere.
 *
 * The bound (first-order perturbation of the update rule, gradients off by at most τ each):
 * - m̂ₜ = Σₛ aₛ·gₛ and v̂ₜ = Σₛ bₛ·gₛ² with bias-corrected weights aₛ, bₛ that each sum to 1, so
 *   |δm̂| ≤ τ and |δ√v̂| ≤ τ (a weighted RMS is 1-Lipschitz);
 * - |u| ≤ uₘₐₓ = √(Σₛ aₛ²/bₛ) (Cauchy–Schwarz; 1 at step 1, 1.0009 at step 2 for β = (0.9, 0.98));
 * - so |δu| ≤ (1 + uₘₐₓ) · τ / (√v̂ + ε), and never more than 2·uₘₐₓ (both updates lie in ±uₘₐₓ);
 * - √v̂ₜ ≥ √b₁ · c₁ · (|g₁| − τ): the first step's gradient stays in the second moment, so the
 *   reference step-1 gradient g₁ (in the fixture) lower-bounds every later denominator;
 * - clipping multiplies step s by cₛ = maxNorm / (‖gₛ‖ + 1e−6) ≤ 1. Adam is invariant to a common
 *   scale, so an error in ‖g‖ (a reduction over every gradient entry) moves u only by mixing steps
 *   scaled differently: at most 2·uₘₐₓ·δc/c;
 * - the parameter after T steps is off by Σₜ lr·|δuₜ| plus the optimizer's own roundings
 *   (~10 per step, relative to |p| + lr);
 * - a later step's gradient is taken at parameters already off by the earlier steps' errors; where
 *   the bound is tight that shift is second order (measured: the step-2 errors equal step 1's).
 * Elements whose gradient is below τ get a bound of order lr: for them no float32 run can promise
 * more. `tight` counts the elements that keep a bound below 1 % of a step, so a test can check that
 * the comparison still pins the update rule down (a wrong bias correction, β or clipping changes
 * every element's step by a sizeable fraction of lr; a missing weight decay by lr·wd·|p|).
 */

export interface AdamwRun {
  /** Learning rate, β₁, β₂ and ε of the run. */
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** Steps taken (the bound is for the parameters after the last one). */
  steps: number;
  /** Clip coefficient of each step, min(1, maxNorm / (‖g‖ + 1e−6)), from the reference norms. */
  clip: number[];
  /** Relative error allowed on the gradient norms (and so on the clip coefficients). */
  clipError: number;
  /** Absolute error allowed on each gradient element (the gradient check's atol + rtol·scale). */
  gradError: number;
  /** Precision the optimizer runs in. Default float32. */
  dtype?: Dtype;
}

export interface AdamwBounds {
  /** Per-element bound on |p − p_ref|. */
  bounds: Float64Array;
  /** How many elements have a bound below 1 % of lr: those pin the update rule down. */
  tight: number;
  why: string;
}

/** Bias-corrected weights of gradient s (1-based) in m̂ₜ (or v̂ₜ with β = β₂). */
function weight(beta: number, s: number, t: number): number {
  return ((1 - beta) * beta ** (t - s)) / (1 - beta ** t);
}

/** Per-element bounds for parameters `expected` after `run.steps` steps, given the step-1 gradient. */
export function adamwBounds(expected: ArrayLike<number>, grad1: ArrayLike<number>, run: AdamwRun): AdamwBounds {
  const tau = run.gradError * Math.max(...run.clip);
  const own = tolerance({ dtype: run.dtype ?? 'float32', length: 1, chain: 10 * run.steps }).rtol;
  const perStep = Array.from({ length: run.steps }, (_, k) => {
    const t = k + 1;
    let uMax2 = 0;
    for (let s = 1; s <= t; s++) uMax2 += weight(run.beta1, s, t) ** 2 / weight(run.beta2, s, t);
    return { uMax: Math.sqrt(uMax2), rho: Math.sqrt(weight(run.beta2, 1, t)) };
  });
  const bounds = new Float64Array(expected.length);
  let tight = 0;
  for (let i = 0; i < expected.length; i++) {
    const g1 = Math.max(0, Math.abs(grad1[i]) - run.gradError) * run.clip[0];
    let b = own * (Math.abs(expected[i]) + run.lr * run.steps);
    for (const { uMax, rho } of perStep) {
      const du = ((1 + uMax) * tau) / (rho * g1 + run.eps) + 2 * uMax * run.clipError;
      b += run.lr * Math.min(2 * uMax, du);
    }
    bounds[i] = b;
    if (b < 0.01 * run.lr) tight++;
  }
  const why =
    `AdamW after ${run.steps} steps, per element: Σ lr·min(2·u_max, (1+u_max)·τ/(√b₁·c₁·(|g₁|−τ) + ε) + 2·u_max·δc) ` +
    `+ own roundings; τ = ${tau.toExponential(2)}, δc = ${run.clipError.toExponential(2)} (see test/helpers/adamwTolerance.ts)`;
  return { bounds, tight, why };
}

/**
 * Relative error allowed on the global gradient norm ‖g‖ = √Σ g², the clipping's reduction, given
 * the reference gradients (one array per tensor) and the tolerance of each element. First order,
 * δ‖g‖ = Σ g·δg / ‖g‖; with each δg bounded by τₜ = atol + rtol·max|gₜ| and independent (the model
 * of numeric.ts), that sum is bounded by √Σₜ (τₜ·‖gₜ‖)² / ‖g‖. The norm's own reduction adds the
 * rounding of a sum of squares (no cancellation: relative to the result itself).
 */
export function gradNormError(grads: Array<ArrayLike<number>>, tol: { rtol: number; atol: number }, dtype: Dtype = 'float32'): number {
  let total = 0;
  let spread = 0;
  let longest = 1;
  for (const g of grads) {
    let sq = 0;
    let top = 0;
    for (let i = 0; i < g.length; i++) {
      sq += g[i] * g[i];
      top = Math.max(top, Math.abs(g[i]));
    }
    const tau = tol.atol + tol.rtol * top;
    total += sq;
    spread += tau * tau * sq;
    longest = Math.max(longest, g.length);
  }
  const own = tolerance({ dtype, length: longest, chain: 2 }).rtol;
  return total > 0 ? Math.sqrt(spread) / total + own : own;
}
