import * as tf from '@tensorflow/tfjs-core';
import { FUSED, fusable, runFused } from '../ops/fusedKernels.js';

/** The scalars of one AdamW step for one parameter (see {@link adamwUpdate}). */
export interface AdamWRule {
  beta1: number;
  beta2: number;
  eps: number;
  /** Gradient scale from global-norm clipping; 1 when not clipped. */
  coef: number;
  /** The parameter's factor from decoupled weight decay, 1 − lr·wd; 1 without decay. */
  decay: number;
  /** √(1 − β2^t). */
  sqrtBc2: number;
  /** lr / (1 − β1^t). */
  step: number;
}

/**
 * torch.optim.AdamW's update of one parameter p with gradient g and moments m, v (null before the
 * first step): returns [p', m', v']. One kernel on the GPU (every element read and written once);
 * tfjs ops, in the same order, elsewhere.
 *   g ← g·coef;  m' = m·β1 + g·(1−β1);  v' = v·β2 + g²·(1−β2)
 *   p' = p·decay − (m' / (√v' / √bc2 + ε)) · (lr / bc1)
 */
export function adamwUpdate(p: tf.Tensor, grad: tf.Tensor, m: tf.Tensor | null, v: tf.Tensor | null, r: AdamWRule): tf.Tensor[] {
  if (fusable(FUSED.adamw, p, grad)) {
    // m·β1 + x with m = 0 is exactly x, so zeros stand in for the missing first moments.
    const m0 = m ?? tf.zerosLike(p);
    const v0 = v ?? tf.zerosLike(p);
    return runFused<tf.Tensor[]>(FUSED.adamw, { p, g: grad, m: m0, v: v0 }, r);
  }
  const g = r.coef !== 1 ? tf.mul(grad, r.coef) : grad;
  const m1 = m ? tf.add(tf.mul(m, r.beta1), tf.mul(g, 1 - r.beta1)) : tf.mul(g, 1 - r.beta1);
  const v1 = v ? tf.add(tf.mul(v, r.beta2), tf.mul(tf.square(g), 1 - r.beta2)) : tf.mul(tf.square(g), 1 - r.beta2);
  const denom = tf.add(tf.div(tf.sqrt(v1), r.sqrtBc2), r.eps);
  const decayed = r.decay !== 1 ? tf.mul(p, r.decay) : p;
  return [tf.sub(decayed, tf.mul(tf.div(m1, denom), r.step)), m1, v1];
}
