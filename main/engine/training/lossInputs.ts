import * as tf from '@tensorflow/tfjs-core';
import type { CausalLM } from '../model/causalLM.js';
import type { LossInputs, TrainBatch } from './train.js';
import { logSoftmax } from '../ops/logSoftmax.js';
import { logitsAt, vocabStats } from './vocabStats.js';

/** The selected rows of a batch, flattened (see train.ts layout()). */
export interface SelectedRows {
  B: number;
  targets: number[];
  sample: number[];
  mask: number[];
  weights: number[];
  extra: Record<string, number[]>;
  vectors: Record<string, number[]>;
}

/**
 * What a loss function sees for the selected rows h [N, H] (final-normalised hidden states).
 * Log-probs, entropy and log-probs at given ids come from the fused vocabulary statistics (no
 * [N, V] tensor); `logits` and `logSoftmax` are computed only if the loss reads them.
 */
export function lossInputs(lm: CausalLM, h: tf.Tensor2D, rows: SelectedRows, batch: TrainBatch, weightGrad: boolean): LossInputs {
  const N = rows.targets.length;
  const head = lm.headWeight(true);
  const [lse, entropy] = tf.split(vocabStats(h, head, weightGrad), 2, 1).map((t) => tf.reshape(t, [N])) as [tf.Tensor1D, tf.Tensor1D];
  const targets = tf.tensor1d(rows.targets, 'int32');
  const logprobsAt = (ids: tf.Tensor2D) => tf.sub(logitsAt(h, head, tf.cast(ids, 'int32') as tf.Tensor2D), tf.reshape(lse, [N, 1])) as tf.Tensor2D;
  let full: { logits: tf.Tensor2D; logSoftmax: tf.Tensor2D } | null = null;
  const materialise = () => {
    if (!full) {
      const logits = lm.head(h, true);
      full = { logits, logSoftmax: logSoftmax(logits) };
    }
    return full;
  };
  return {
    logprobs: tf.reshape(logprobsAt(tf.reshape(targets, [N, 1]) as tf.Tensor2D), [N]) as tf.Tensor1D,
    entropy,
    logprobsAt,
    get logits() {
      return materialise().logits;
    },
    get logSoftmax() {
      return materialise().logSoftmax;
    },
    targets,
    sample: tf.tensor1d(rows.sample, 'int32'),
    numSamples: rows.B,
    mask: tf.tensor1d(rows.mask),
    weights: tf.tensor1d(rows.weights),
    extra: Object.fromEntries(Object.entries(rows.extra).map(([k, v]) => [k, tf.tensor1d(v)])),
    extraVectors: Object.fromEntries(
      Object.entries(rows.vectors).map(([k, v]) => [k, tf.tensor2d(v, [N, batch.extraVectors![k].width])]),
    ),
  };
}
