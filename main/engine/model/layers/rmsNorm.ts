import * as tf from '@tensorflow/tfjs-core';

/** RMSNorm over the last axis: x * rsqrt(mean(x²) + eps) * weight. x: [..., D], weight: [D]. */
export function rmsNorm(x: tf.Tensor, weight: tf.Tensor, eps: number): tf.Tensor {
  const meanSq = tf.mean(tf.square(x), -1, true); // [..., 1]
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(meanSq, eps))), weight);
}
