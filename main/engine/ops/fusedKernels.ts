import * as tf from '@tensorflow/tfjs-core';

/**
 * Fused kernels: one op the model calls, a WGSL kernel on the GPU backend, the same maths as tfjs
 * ops (the composite) on the CPU backends. The model has one copy of its code; which path runs
 * depends only on the active backend. CLAWLOOP_FUSED=0 turns the kernels off (the composite runs
 * everywhere), to compare the two.
 */
export const FUSED = {
  rmsNorm: 'ClawRmsNorm',
  rope: 'ClawRope',
  swiglu: 'ClawSwiGlu',
  attention: 'ClawAttention',
  logSoftmax: 'ClawLogSoftmax',
  targetLogprob: 'ClawTargetLogprob',
  loraAdd: 'ClawLoraAdd',
  adamw: 'ClawAdamW',
  matmulW16: 'ClawMatMulW16',
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

/** Runs a fused kernel (its gradient is registered with the GPU kernels, in fusedGradients.ts). */
export function runFused<T extends tf.Tensor | tf.Tensor[]>(kernel: FusedKernel, inputs: tf.NamedTensorMap, attrs: object = {}): T {
  return tf.engine().runKernel(kernel, inputs, attrs as tf.NamedAttrMap) as unknown as T;
}
