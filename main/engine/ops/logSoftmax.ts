import * as tf from '@tensorflow/tfjs-core';
import { pickTargets } from '../model/tensorUtil.js';
import { FUSED, fusable, runFused } from './fusedKernels.js';

/** log softmax over the last axis (one pass on the GPU, tfjs's composite elsewhere). */
export function logSoftmax(x: tf.Tensor2D): tf.Tensor2D {
  if (fusable(FUSED.logSoftmax, x)) return runFused(FUSED.logSoftmax, { x });
  return tf.logSoftmax(x) as tf.Tensor2D;
}

/**
 * log softmax(logits)[n, targets[n]] for each row: [N]. On the GPU only these N values are
 * written (the log-sum-exp of each row is computed in place); elsewhere, the full log softmax and
 * a gather.
 */
export function targetLogprobs(logits: tf.Tensor2D, targets: readonly number[]): tf.Tensor1D {
  if (fusable(FUSED.targetLogprob, logits)) {
    return runFused(FUSED.targetLogprob, { logits, targets: tf.tensor1d(targets as number[], 'int32') });
  }
  return pickTargets(tf.logSoftmax(logits) as tf.Tensor2D, targets);
}
