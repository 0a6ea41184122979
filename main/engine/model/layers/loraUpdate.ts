import * as tf from '@tensorflow/tfjs-core';
import { FUSED, fusable, runFused } from '../../ops/fusedKernels.js';
import { matmul } from './matmul.js';

/**
 * y + (xa · b) · scale: a LoRA adapter's update added to its base projection's output, where
 * xa = x·A [N, r] and b [r, out]. The GPU adds it in one pass over y (the rank-r product is
 * formed per element, never stored).
 */
export function addLoraUpdate(y: tf.Tensor, xa: tf.Tensor, b: tf.Tensor, scale: number): tf.Tensor {
  if (fusable(FUSED.loraAdd, y, xa, b)) return runFused(FUSED.loraAdd, { y, xa, b }, { scale });
  return tf.add(y, tf.mul(matmul(xa, b), scale));
}
