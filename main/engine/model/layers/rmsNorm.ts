import * as tf from '@tensorflow/tfjs-core';
import { FUSED, fusedRmsNorm, hasKernel } from './fused.js';

/** RMSNorm over the last axis: x * rsqrt(mean(x²) + eps) * weight. x: [..., D], weight: [D]. */
export function rmsNorm(x: tf.Tensor, weight: tf.Tensor, eps: number): tf.Tensor {
  if (hasKernel(FUSED.RMS_NORM)) return fusedRmsNorm(x, weight, eps);
  const meanSq = tf.mean(tf.square(x), -1, true); // [..., 1]
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(meanSq, eps))), weight);
}
