import * as tf from '@tensorflow/tfjs-core';
import { FUSED, fusable, runFused } from '../../ops/fusedKernels.js';

/** RMSNorm over the last axis with tfjs ops: x * rsqrt(mean(x²) + eps) * weight. */
export function rmsNormComposite(x: tf.Tensor, weight: tf.Tensor, eps: number): tf.Tensor {
  const meanSq = tf.mean(tf.square(x), -1, true); // [..., 1]
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(meanSq, eps))), weight);
}

/** RMSNorm over the last axis: x * rsqrt(mean(x²) + eps) * weight. x: [..., D], weight: [D]. */
export function rmsNorm(x: tf.Tensor, weight: tf.Tensor, eps: number): tf.Tensor {
  if (fusable(FUSED.rmsNorm, x, weight)) return runFused(FUSED.rmsNorm, { x, weight }, { eps });
  return rmsNormComposite(x, weight, eps);
}
