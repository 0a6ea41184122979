import * as tf from '@tensorflow/tfjs-core';
import './gradients.js';
import type { CausalLM } from '../model/causalLM.js';
import type { LoraAdapter } from '../model/lora.js';
import type { Rng } from '../../util/random.js';
import { layerwiseGradients, useCheckpointing } from './layerwise.js';
import { lossInputs } from './lossInputs.js';
import { readScalar } from '../model/tensorRead.js';

/**
 * A training batch of token sequences with per-position values. All per-position arrays align
 * with `ids`: entry t belongs to predicting ids[b][t] from ids[b][<t] (entry 0 is never used:
 * nothing predicts the first token).
 */
export interface TrainBatch {
  /** Token ids per sequence; lengths may differ. */
  ids: number[][];
  /** Loss mask; positions with 0 are skipped entirely (no logits are computed for them). */
  mask: number[][];
  /** Per-token weights, e.g. advantages. Default 1. */
  weights?: number[][];
  /** Other per-token values the loss needs (old log-probs, teacher log-probs, ...). */
  extra?: Record<string, number[][]>;
  /**
   * Per-token vectors of a fixed width K (e.g. a teacher's top-K token ids and log-probs):
   * `values[b]` holds ids[b].length · width numbers, token after token.
   */
  extraVectors?: Record<string, { width: number; values: number[][] }>;
}

/**
 * What a loss function sees: one row per selected (mask ≠ 0) token across the batch, flattened.
 * N = number of selected tokens.
 */
export interface LossInputs {
  /** log π_θ(target) for each selected token: [N]. */
  logprobs: tf.Tensor1D;
  /** Entropy of π_θ at each selected position, −Σ_v p log p: [N]. */
  entropy: tf.Tensor1D;
  /** log π_θ(v) at each selected position for the ids given per row: ids [N, K] → [N, K] (top-K distillation). */
  logprobsAt(ids: tf.Tensor2D): tf.Tensor2D;
  /**
   * Logits at each selected position: [N, V]. Computed only when read, and then for the whole batch
   * at once (V floats per token, and as many again for its gradient): prefer the fields above.
   */
  readonly logits: tf.Tensor2D;
  /** log softmax of `logits`: [N, V]; the same cost as `logits`. */
  readonly logSoftmax: tf.Tensor2D;
  /** Target token ids: int32 [N]. */
  targets: tf.Tensor1D;
  /** Index of the sequence each row comes from: int32 [N] (for per-sample averages). */
  sample: tf.Tensor1D;
  /** Number of sequences in the batch. */
  numSamples: number;
  /** Mask values of the selected tokens: [N]. */
  mask: tf.Tensor1D;
  /** Weights of the selected tokens: [N]. */
  weights: tf.Tensor1D;
  /** Each `extra` array, at the selected tokens: [N]. */
  extra: Record<string, tf.Tensor1D>;
  /** Each `extraVectors` entry, at the selected tokens: [N, width]. */
  extraVectors: Record<string, tf.Tensor2D>;
}

/** Maps a batch to a scalar loss; must use only tfjs ops on its inputs so gradients flow. */
export type LossFn = (x: LossInputs) => tf.Scalar;

/** What to differentiate: a LoRA adapter's A/B matrices, or every base weight (full fine-tuning). */
export type GradientTarget = { adapter: LoraAdapter } | 'full';

export interface GradientResult {
  loss: number;
  /** Gradients keyed like the parameters (PEFT names for LoRA, Hugging Face names for full). Caller disposes. */
  grads: Map<string, tf.Tensor>;
  /** Selected (trained) tokens. */
  tokens: number;
}

export class TrainError extends Error {
  override name = 'TrainError';
}

/** The variables a target trains, by name. */
export function trainableParameters(lm: CausalLM, target: GradientTarget): Map<string, tf.Variable> {
  if (target === 'full') return lm.parameters();
  return target.adapter.variables();
}

/** Flattens a ragged batch into padded ids and the selected rows. */
function layout(batch: TrainBatch) {
  const B = batch.ids.length;
  if (B === 0) throw new TrainError('the batch is empty');
  const T = Math.max(...batch.ids.map((s) => s.length));
  const ids = new Int32Array(B * T);
  const rows: number[] = []; // row in [B·T] whose hidden state predicts the target
  const targets: number[] = [];
  const sample: number[] = [];
  const mask: number[] = [];
  const weights: number[] = [];
  const extraNames = Object.keys(batch.extra ?? {});
  const extra: Record<string, number[]> = Object.fromEntries(extraNames.map((k) => [k, []]));
  const vectorNames = Object.keys(batch.extraVectors ?? {});
  const vectors: Record<string, number[]> = Object.fromEntries(vectorNames.map((k) => [k, []]));
  batch.ids.forEach((seq, b) => {
    const m = batch.mask[b];
    if (!m || m.length !== seq.length) throw new TrainError(`mask[${b}] has length ${m?.length}; expected ${seq.length} (one per token)`);
    const w = batch.weights?.[b];
    if (w && w.length !== seq.length) throw new TrainError(`weights[${b}] has length ${w.length}; expected ${seq.length}`);
    for (const k of extraNames) {
      if (batch.extra![k][b]?.length !== seq.length)
        throw new TrainError(`extra.${k}[${b}] has length ${batch.extra![k][b]?.length}; expected ${seq.length}`);
    }
    ids.set(seq, b * T);
    for (let t = 1; t < seq.length; t++) {
      if (m[t] === 0) continue;
      rows.push(b * T + t - 1);
      targets.push(seq[t]);
      sample.push(b);
      mask.push(m[t]);
      weights.push(w ? w[t] : 1);
      for (const k of extraNames) extra[k].push(batch.extra![k][b][t]);
      for (const k of vectorNames) {
        const { width, values } = batch.extraVectors![k];
        for (let j = 0; j < width; j++) vectors[k].push(values[b][t * width + j]);
      }
    }
  });
  return { B, T, ids, rows, targets, sample, mask, weights, extra, vectors };
}

export interface GradientOptions {
  /** Seeds LoRA dropout (one seed per layer is drawn from it). Default: unseeded. */
  rng?: Rng;
  /**
   * Activation checkpointing: keep only each layer's input and recompute the layer during the
   * backward pass (one more forward pass of compute, one layer's activations in memory instead of
   * all). 'auto' (default) turns it on when the activations would exceed a quarter of RAM; true or
   * false forces it.
   */
  checkpoint?: boolean | 'auto';
}

/**
 * Loss and gradients for one batch. Hidden states are computed for every position, but only
 * the rows selected by the mask reach the vocabulary, through fused statistics that never hold the
 * [N, V] logits of the whole batch (see vocabStats.ts).
 */
export async function computeGradients(
  lm: CausalLM,
  batch: TrainBatch,
  lossFn: LossFn,
  target: GradientTarget,
  opts: GradientOptions = {},
): Promise<GradientResult> {
  const L = layout(batch);
  if (L.rows.length === 0) throw new TrainError('the batch selects no tokens (every mask entry is 0)');
  const params = trainableParameters(lm, target);
  const vars = [...params.values()];
  if (target === 'full' && !vars.every((v) => v.trainable)) throw new TrainError('full fine-tuning needs lm.setTrainable(true) first');
  const adapter = target === 'full' ? null : target.adapter;
  const lossOf = (hidden: tf.Tensor2D): tf.Scalar => {
    const selected = tf.gather(hidden, tf.tensor1d(L.rows, 'int32')) as tf.Tensor2D; // [N, H]
    const loss = lossFn(lossInputs(lm, selected, L, batch, target === 'full'));
    if (loss.rank !== 0) throw new TrainError(`the loss function returned a rank-${loss.rank} tensor; it must return a scalar`);
    return loss as tf.Scalar;
  };
  const ids = () => tf.tensor2d(L.ids, [L.B, L.T], 'int32');
  let value: tf.Scalar;
  let grads: Record<string, tf.Tensor>;
  if (useCheckpointing(opts.checkpoint ?? 'auto', lm.config, L.B, L.T)) {
    const idTensor = ids();
    ({ value, grads } = layerwiseGradients(lm, idTensor, target, lossOf, opts.rng));
    idTensor.dispose();
  } else {
    ({ value, grads } = tf.variableGrads(() => lossOf(lm.hidden(ids(), { adapter, training: true, rng: opts.rng })), vars));
  }
  const byVar = new Map<string, string>();
  for (const [name, v] of params) byVar.set(v.name, name);
  const out = new Map<string, tf.Tensor>();
  for (const [varName, g] of Object.entries(grads)) {
    const name = byVar.get(varName);
    if (name && g) out.set(name, g);
    else g?.dispose();
  }
  // Parameters the loss does not reach get zero gradients, so optimizers see every parameter.
  for (const [name, v] of params) if (!out.has(name)) out.set(name, tf.zerosLike(v));
  const loss = await readScalar(value);
  return { loss, grads: out, tokens: L.rows.length };
}

/** Mean token cross-entropy over the selected tokens, weighted by mask: −Σ m·log p / Σ m. */
export const crossEntropyLoss: LossFn = ({ logprobs, mask }) => tf.neg(tf.div(tf.sum(tf.mul(logprobs, mask)), tf.sum(mask))) as tf.Scalar;
