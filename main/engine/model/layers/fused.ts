import * as tf from '@tensorflow/tfjs-core';
import { MASKED_SOFTMAX, MASKED_SOFTMAX_GRAD, RMS_NORM, RMS_NORM_GRAD, ROPE, SWIGLU, SWIGLU_GRAD } from '../../backends/native/kernels/fusedKernels.js';

/**
 * Fused layer operations, used where the active backend registers kernels for them (the native
 * backend does): each is one pass over memory forward and one backward, where tfjs ops would take
 * several and keep their intermediates for the gradient. Elsewhere the layers run the same maths
 * as tfjs ops (rmsNorm.ts, rope.ts, attention.ts, decoderBlock.ts); both paths are tested
 * against the same PyTorch references.
 */

/** True when the active backend has a kernel named `name`. */
export function hasKernel(name: string): boolean {
  return tf.getKernel(name, tf.getBackend()) !== undefined;
}

type Attrs = Record<string, unknown>;
const run = (name: string, inputs: Record<string, tf.Tensor>, attrs: Attrs = {}) =>
  tf.engine().runKernel(name, inputs, attrs as unknown as tf.NamedAttrMap) as tf.Tensor | tf.Tensor[];
const custom = (f: (...args: never[]) => { value: tf.Tensor; gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.Tensor | tf.Tensor[] }) =>
  tf.customGrad(f as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (...xs: tf.Tensor[]) => tf.Tensor;

/** RMSNorm over the last axis, x [..., D] and weight [D] (differentiable in both). */
export function fusedRmsNorm(x: tf.Tensor, w: tf.Tensor, eps: number): tf.Tensor {
  return custom((xv: tf.Tensor, wv: tf.Tensor, save: tf.GradSaveFunc) => {
    const [y, r] = run(RMS_NORM, { x: xv, w: wv }, { eps }) as tf.Tensor[];
    save([xv, wv, r]);
    return { value: y, gradFunc: (dy, [sx, sw, sr]) => run(RMS_NORM_GRAD, { x: sx, w: sw, r: sr, dy }) as tf.Tensor[] };
  })(x, w);
}

/** silu(gate)·up. */
export function fusedSwiglu(gate: tf.Tensor, up: tf.Tensor): tf.Tensor {
  return custom((g: tf.Tensor, u: tf.Tensor, save: tf.GradSaveFunc) => {
    save([g, u]);
    return { value: run(SWIGLU, { g, u }) as tf.Tensor, gradFunc: (dy, [sg, su]) => run(SWIGLU_GRAD, { g: sg, u: su, dy }) as tf.Tensor[] };
  })(gate, up);
}

/**
 * Rotate-half RoPE of heads x [B, T, H, D], returned as [B, H, T, D] (attention's layout): the
 * transpose happens in the same pass. cos/sin: [T, D/2] or per row [B, 1, T, D/2].
 */
export function fusedRopeHeads(x: tf.Tensor4D, cos: tf.Tensor, sin: tf.Tensor): tf.Tensor4D {
  return custom((xv: tf.Tensor, save: tf.GradSaveFunc) => {
    save([cos, sin]); // kept for the backward pass: the caller's scope may free the tables first
    return { value: run(ROPE, { x: xv, cos, sin }) as tf.Tensor, gradFunc: (dy, [c, s]) => run(ROPE, { x: dy, cos: c, sin: s }, { inverse: true }) as tf.Tensor };
  })(x) as tf.Tensor4D;
}

/** softmax(scale·s + mask) over the last axis; s [B, K, G·T, S], mask [T, S] or [B, 1, T, S] (shared by the G query heads of a KV head). */
export function fusedMaskedSoftmax(s: tf.Tensor4D, mask: tf.Tensor, scale: number): tf.Tensor4D {
  return custom((sv: tf.Tensor, save: tf.GradSaveFunc) => {
    const p = run(MASKED_SOFTMAX, { s: sv, mask }, { scale }) as tf.Tensor;
    save([p]);
    return { value: p, gradFunc: (dp, [sp]) => run(MASKED_SOFTMAX_GRAD, { p: sp, dp }, { scale }) as tf.Tensor };
  })(s) as tf.Tensor4D;
}

export const FUSED = { RMS_NORM, SWIGLU, ROPE, MASKED_SOFTMAX };
