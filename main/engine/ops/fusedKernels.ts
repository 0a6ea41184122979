import * as tf from '@tensorflow/tfjs-core';

/**
 * Fused kernels: one op the model calls, registered under the same name by every backend that has
 * a kernel for it (WGSL on the GPU backend, C++ on the native backend), and the same maths as tfjs
 * ops (the composite) where none does. The model has one copy of its code; which path runs depends
 * only on the active backend. Each op's gradient is registered once for all backends
 * (fusedGradients.ts); it runs the op's fused backward kernel (the `…Grad` names) where the
 * backend has one, tfjs ops elsewhere. CLAWLOOP_FUSED=0 turns the kernels off (the composite runs
 * everywhere), to compare the two.
 *
 * Inputs, attributes and outputs of each (shapes as the layers pass them):
 * - rmsNorm {x [..., D], weight [D]} {eps} → y; rmsNormGrad {x, weight, dy} {eps} → [dx, dw].
 * - rope {x [B, T, H, D], cos, sin [T, D/2] or [B, 1, T, D/2]} {keysT} → [B, H, T, D], or
 *   [B, H, D, T] with keysT; ropeGrad {dy [B, H, T, D], cos, sin} → dx [B, T, H, D].
 * - swiglu {gate, up} → y; swigluGrad {gate, up, dy} → [dgate, dup].
 * - maskedSoftmax {s [B, K, G·T, S], mask [T, S] or [B, 1, T, S]} {scale} → softmax(scale·s + mask)
 *   (the mask shared by the G query heads of a KV head); maskedSoftmaxGrad {p, dp} {scale} → ds.
 * - vocabStats {h [N, H], w [V, H]} → [N, 2] (log-sum-exp, entropy of softmax(h·wᵀ));
 *   vocabStatsGrad {h, w, stats, dy} {weightGrad} → [dh] or [dh, dw].
 * - flashAttention {q [B, H, T, D], kT [B, KVH, D, S], v [B, KVH, S, D], rows int32 [B, 2]}
 *   {window, scale} → [out [B, T, H·D], lse [B, H, T]]: attention's tiled form (no [T, S] matrix);
 *   flashAttentionGrad {q, kT, v, rows, out, lse, dy} {window, scale} → [dq, dkT, dv].
 * - projectMany {x [R, in], w0, w1, … [out_i, in]} → [x·w0ᵀ, x·w1ᵀ, …]: projections of one input
 *   (a layer's query, key and value) in one pass over their weights.
 * - attention, logSoftmax, targetLogprob, loraAdd, adamw, matmulW16: see their callers.
 */
export const FUSED = {
  rmsNorm: 'ClawRmsNorm',
  rmsNormGrad: 'ClawRmsNormGrad',
  rope: 'ClawRope',
  ropeGrad: 'ClawRopeGrad',
  swiglu: 'ClawSwiGlu',
  swigluGrad: 'ClawSwiGluGrad',
  maskedSoftmax: 'ClawMaskedSoftmax',
  maskedSoftmaxGrad: 'ClawMaskedSoftmaxGrad',
  vocabStats: 'ClawVocabStats',
  vocabStatsGrad: 'ClawVocabStatsGrad',
  attention: 'ClawAttention',
  flashAttention: 'ClawFlashAttention',
  flashAttentionGrad: 'ClawFlashAttentionGrad',
  logSoftmax: 'ClawLogSoftmax',
  targetLogprob: 'ClawTargetLogprob',
  loraAdd: 'ClawLoraAdd',
  adamw: 'ClawAdamW',
  matmulW16: 'ClawMatMulW16',
  projectMany: 'ClawProjectMany',
} as const;

export type FusedKernel = (typeof FUSED)[keyof typeof FUSED];

/** CLAWLOOP_FUSED, read once (it is consulted on every op call). */
let fusedOff: boolean | null = null;

/** Whether `kernel` runs fused for these (non-empty, float32) inputs on the active backend. */
export function fusable(kernel: FusedKernel, ...inputs: tf.Tensor[]): boolean {
  fusedOff ??= process.env.CLAWLOOP_FUSED === '0';
  if (fusedOff) return false;
  if (!tf.getKernel(kernel, tf.getBackend())) return false;
  return inputs.every((t) => t.size > 0 && t.dtype === 'float32');
}

/** Runs a fused kernel (its gradient, if it has one, is in fusedGradients.ts). */
export function runFused<T extends tf.Tensor | tf.Tensor[]>(kernel: FusedKernel, inputs: tf.NamedTensorMap, attrs: object = {}): T {
  return tf.engine().runKernel(kernel, inputs, attrs as tf.NamedAttrMap) as unknown as T;
}
