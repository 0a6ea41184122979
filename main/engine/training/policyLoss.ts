import * as tf from '@tensorflow/tfjs-core';
import { matmul } from '../model/layers/matmul.js';
import { readAll } from '../model/tensorRead.js';
import type { LossFn, LossInputs } from './train.js';
import type { StepMetrics } from '../../protocol/training.js';

/**
 * The policy loss of docs/learning-loop.md §4, on the engine's flattened token rows.
 *
 * Per token t (π_old = the policy that sampled the response; its log-probs were recorded):
 *   ρ_t  = exp(log π_θ(a_t) − log π_old(a_t))
 *   pg_t = −min(ρ_t·A_t, clip(ρ_t, 1 − ε_low, 1 + ε_high)·A_t)          (asymmetric PPO clip)
 *   kl_t = exp(ref_t − log π_θ(a_t)) − (ref_t − log π_θ(a_t)) − 1        (k3 estimator, ref = frozen base)
 *   H_t  = −Σ_v p_θ(v) log p_θ(v)                                        (entropy)
 *   rkl_t = Σ_{k∈topK ∪ tail} p_θ(k)·(log p_θ(k) − log p_teacher(k))      (top-K reverse KL, option)
 *   ℓ_t  = pg_t + β_kl·kl_t − β_H·H_t + w_rkl,t·rkl_t
 * The loss averages ℓ over each sample's masked tokens, then over the samples that have any.
 *
 * Inputs (TrainBatch fields): `weights` = advantages A_t; `extra.old` = log π_old; `extra.ref` when
 * β_kl > 0; for the reverse-KL option `extra.rklWeight` (w_opd on OPD tokens, else 0) and
 * `extraVectors.teacherTopIds` / `teacherTopLogprobs` ([N, K]).
 */
export interface PolicyLossConfig {
  /** Lower clip range ε_low: ρ is clipped at 1 − ε_low. Reference 0.2. */
  epsLow: number;
  /** Upper clip range ε_high: ρ is clipped at 1 + ε_high. Reference 0.28. */
  epsHigh: number;
  /** β_kl, weight of the k3 KL to the reference policy. 0 turns it off (needs `extra.ref` otherwise). */
  klCoef: number;
  /** β_H, weight of the entropy bonus. Reference 0. */
  entropyCoef: number;
  /** Add the top-K reverse-KL term (needs `extra.rklWeight` and the teacher's top-K). Default false. */
  topKReverseKl?: boolean;
}

/** Step metrics computed alongside the loss (token means over masked rows). */
export type PolicyLossMetrics = Pick<
  StepMetrics,
  'loss' | 'pg_loss' | 'kl' | 'entropy' | 'reverse_kl' | 'clip_fraction' | 'ratio_mean' | 'logprob_drift'
>;

/** Probabilities below this are treated as this, so log(1 − Σ p_topK) stays finite. */
export const TAIL_EPS = 1e-12;

/** Σ_t m_t·x_t / Σ_t m_t per sample, then the mean over samples that have any mass. */
export function perSampleMean(values: tf.Tensor1D, mask: tf.Tensor1D, sample: tf.Tensor1D, numSamples: number): tf.Scalar {
  if (values.size === 0) return tf.scalar(0);
  // One-hot by comparison: tfjs-wasm's OneHot with dtype float32 writes int32 bit patterns (4.22).
  const onehot = tf.cast(tf.equal(tf.reshape(tf.cast(sample, 'int32'), [-1, 1]), tf.range(0, numSamples, 1, 'int32')), 'float32'); // [N, B]
  const sums = tf.reshape(matmul(tf.reshape(tf.mul(values, mask), [1, -1]), onehot), [numSamples]);
  const counts = tf.reshape(matmul(tf.reshape(mask, [1, -1]), onehot), [numSamples]);
  const has = tf.cast(tf.greater(counts, 0), 'float32');
  const means = tf.div(sums, tf.maximum(counts, 1e-12));
  return tf.div(tf.sum(tf.mul(means, has)), tf.maximum(tf.sum(has), 1)) as tf.Scalar;
}

/**
 * Top-K reverse KL with a tail bin, per row: `ls` [N, K] = the student's log-probs at the teacher's
 * top-K ids, `teacherLogprobs` [N, K] the teacher's.
 */
export function topKReverseKl(ls: tf.Tensor2D, teacherLogprobs: tf.Tensor2D): tf.Tensor1D {
  const lsTail = tf.log(tf.maximum(tf.sub(1, tf.sum(tf.exp(ls), 1)), TAIL_EPS)); // [N]
  const ltTail = tf.log(tf.maximum(tf.sub(1, tf.sum(tf.exp(teacherLogprobs), 1)), TAIL_EPS));
  const top = tf.sum(tf.mul(tf.exp(ls), tf.sub(ls, teacherLogprobs)), 1);
  const tail = tf.mul(tf.exp(lsTail), tf.sub(lsTail, ltTail));
  return tf.add(top, tail) as tf.Tensor1D;
}

/**
 * The loss function for computeGradients, plus the metrics of its last call. Metrics are read
 * after the step (`takeMetrics`), so computing them costs no extra forward pass.
 */
export function policyLoss(cfg: PolicyLossConfig): { fn: LossFn; takeMetrics: () => Promise<PolicyLossMetrics> } {
  let kept: Record<keyof PolicyLossMetrics, tf.Scalar> | null = null;
  const fn: LossFn = (x: LossInputs) => {
    const { logprobs: lp, weights: adv, mask, sample, numSamples } = x;
    const old = x.extra.old;
    if (!old) throw new Error('policyLoss needs extra.old (the rollout log-probs)');
    const ratio = tf.exp(tf.sub(lp, old));
    const clipped = tf.clipByValue(ratio, 1 - cfg.epsLow, 1 + cfg.epsHigh);
    const pg = tf.neg(tf.minimum(tf.mul(ratio, adv), tf.mul(clipped, adv))) as tf.Tensor1D;
    let tok: tf.Tensor1D = pg;

    let kl: tf.Tensor1D = tf.zerosLike(lp);
    if (x.extra.ref) {
      const d = tf.sub(x.extra.ref, lp);
      kl = tf.sub(tf.sub(tf.exp(d), d), 1) as tf.Tensor1D;
      if (cfg.klCoef > 0) tok = tf.add(tok, tf.mul(kl, cfg.klCoef)) as tf.Tensor1D;
    } else if (cfg.klCoef > 0) {
      throw new Error('policyLoss: klCoef > 0 needs extra.ref (the reference log-probs)');
    }

    const entropy = x.entropy;
    if (cfg.entropyCoef > 0) tok = tf.sub(tok, tf.mul(entropy, cfg.entropyCoef)) as tf.Tensor1D;

    let rkl: tf.Tensor1D = tf.zerosLike(lp);
    if (cfg.topKReverseKl) {
      const ids = x.extraVectors.teacherTopIds;
      const tlp = x.extraVectors.teacherTopLogprobs;
      const w = x.extra.rklWeight;
      if (!ids || !tlp || !w) throw new Error('policyLoss: the top-K reverse KL needs extra.rklWeight and the teacher top-K vectors');
      rkl = tf.mul(topKReverseKl(x.logprobsAt(ids), tlp), tf.cast(tf.greater(w, 0), 'float32')) as tf.Tensor1D;
      tok = tf.add(tok, tf.mul(rkl, w)) as tf.Tensor1D;
    }

    const loss = perSampleMean(tok, mask, sample, numSamples);
    // Metrics (no gradient flows through them: they do not feed the loss).
    const tokenMean = (v: tf.Tensor) => tf.div(tf.sum(tf.mul(v, mask)), tf.maximum(tf.sum(mask), 1e-12)) as tf.Scalar;
    const clippedUp = tf.logicalAnd(tf.greater(adv, 0), tf.greater(ratio, 1 + cfg.epsHigh));
    const clippedDown = tf.logicalAnd(tf.less(adv, 0), tf.less(ratio, 1 - cfg.epsLow));
    if (kept) for (const t of Object.values(kept)) t.dispose();
    kept = {
      loss: tf.keep(tf.clone(loss)),
      pg_loss: tf.keep(perSampleMean(pg, mask, sample, numSamples)),
      kl: tf.keep(tokenMean(kl)),
      entropy: tf.keep(tokenMean(entropy)),
      reverse_kl: tf.keep(tokenMean(rkl)),
      clip_fraction: tf.keep(tokenMean(tf.cast(tf.logicalOr(clippedUp, clippedDown), 'float32'))),
      ratio_mean: tf.keep(tokenMean(ratio)),
      logprob_drift: tf.keep(tokenMean(tf.abs(tf.sub(lp, old)))),
    };
    return loss;
  };
  const takeMetrics = async (): Promise<PolicyLossMetrics> => {
    if (!kept) throw new Error('policyLoss: no step has run');
    const names = Object.keys(kept);
    const values = await readAll(Object.values(kept));
    kept = null;
    return Object.fromEntries(names.map((k, i) => [k, values[i][0]])) as unknown as PolicyLossMetrics;
  };
  return { fn, takeMetrics };
}
