import { scoreResponses, type LoraAdapter, type Model, type TrainBatch } from '../engine/index.js';
import { effectiveKlCoef, type StepMetrics, type TrainingConfig } from '../protocol/training.js';
import type { StoredSample } from '../store/learnStore.js';
import type { StoredTurn } from '../store/turnStore.js';
import { tokenAdvantages } from './advantages.js';

/** A queued sample with the turn it was built from. */
export interface BatchItem {
  sample: StoredSample;
  turn: StoredTurn;
  /** Generated too many adapter versions ago: its π_old is re-scored under the current adapter. */
  stale?: boolean;
}

/** One sequence of the batch: prompt then response, every per-token row padded over the prompt. */
interface SampleRows {
  ids: number[];
  mask: number[];
  weights: number[];
  old: number[];
  rklWeight: number[];
  /** The teacher's top-K ids and log-probs ([T·K]), with the top-K reverse-KL loss only. */
  topIds: number[] | null;
  topLps: number[] | null;
}

function sampleRows({ sample, turn }: BatchItem, c: TrainingConfig): SampleRows {
  const rkl = c.opd_loss === 'topk_reverse_kl';
  const K = c.opd_top_k;
  const P = turn.promptIds.length;
  const R = turn.responseIds.length;
  const useRklForOpd = rkl && sample.teacherTopIds !== null;
  const adv = tokenAdvantages(
    { reward: sample.reward, teacherLogprobs: useRklForOpd ? null : sample.teacherLogprobs, oldLogprobs: turn.responseLogprobs },
    { wRl: c.w_rl, wOpd: c.w_opd, opdClip: c.opd_clip, rlSkipConfident: c.rl_skip_confident },
  );
  const pad = (xs: number[]) => [...new Array<number>(P).fill(0), ...xs];
  const rows: SampleRows = {
    ids: [...turn.promptIds, ...turn.responseIds],
    mask: pad(new Array<number>(R).fill(1)),
    weights: pad(adv),
    old: pad(turn.responseLogprobs),
    rklWeight: pad(new Array<number>(R).fill(useRklForOpd ? c.w_opd : 0)),
    topIds: null,
    topLps: null,
  };
  if (rkl) {
    const sampleK = sample.topK ?? K;
    rows.topIds = new Array<number>((P + R) * K).fill(0);
    rows.topLps = new Array<number>((P + R) * K).fill(-1e9);
    if (useRklForOpd && sampleK === K) {
      for (let j = 0; j < R * K; j++) {
        rows.topIds[P * K + j] = sample.teacherTopIds![j];
        rows.topLps[P * K + j] = sample.teacherTopLogprobs![j];
      }
    }
  }
  return rows;
}

/**
 * Gives stale samples a fresh π_old: their responses are scored under the adapter being trained,
 * so the step's ratio and the OPD advantage compare with today's policy. A user's feedback is not
 * thrown away because the model moved on while it waited.
 */
export async function refreshStale(model: Model, adapter: LoraAdapter | null, batch: BatchItem[]): Promise<BatchItem[]> {
  const stale = batch.filter((b) => b.stale);
  if (!stale.length) return batch;
  const scored = await scoreResponses(
    model.lm,
    stale.map(({ turn }) => ({ promptIds: turn.promptIds, responseIds: turn.responseIds })),
    { adapter },
  );
  const fresh = new Map(stale.map((b, i) => [b, Array.from(scored[i].logprobs)]));
  return batch.map((b) => (fresh.has(b) ? { ...b, turn: { ...b.turn, responseLogprobs: fresh.get(b)! } } : b));
}

/** Token sequences, masks, advantages and the per-token values the policy loss needs. */
export async function buildTrainBatch(model: Model, c: TrainingConfig, batch: BatchItem[]): Promise<TrainBatch> {
  const rows = batch.map((item) => sampleRows(item, c));
  const extra: Record<string, number[][]> = { old: rows.map((r) => r.old), rklWeight: rows.map((r) => r.rklWeight) };
  if (effectiveKlCoef(c) > 0) {
    // The reference policy for the KL term is the frozen base model (adapter off).
    const scored = await scoreResponses(
      model.lm,
      batch.map(({ turn }) => ({ promptIds: turn.promptIds, responseIds: turn.responseIds })),
    );
    extra.ref = batch.map(({ turn }, i) => [...new Array<number>(turn.promptIds.length).fill(0), ...scored[i].logprobs]);
  }
  const K = c.opd_top_k;
  return {
    ids: rows.map((r) => r.ids),
    mask: rows.map((r) => r.mask),
    weights: rows.map((r) => r.weights),
    extra,
    ...(c.opd_loss === 'topk_reverse_kl'
      ? {
          extraVectors: {
            teacherTopIds: { width: K, values: rows.map((r) => r.topIds!) },
            teacherTopLogprobs: { width: K, values: rows.map((r) => r.topLps!) },
          },
        }
      : {}),
  };
}

/** What a batch holds, for the step's metrics: sample kinds, the mean reward, the teacher's advantage. */
export function batchStats(batch: BatchItem[]): Pick<StepMetrics, 'mean_reward' | 'samples' | 'teacher_advantage'> {
  const samples = { rl: 0, opd: 0, both: 0, total: batch.length };
  batch.forEach((b) => samples[b.sample.kind]++);
  const rewards = batch.map((b) => b.sample.reward).filter((r): r is number => r !== null);
  return {
    mean_reward: rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null,
    samples,
    teacher_advantage: teacherAdvantageStats(batch),
  };
}

/** Mean and standard deviation of log π_teacher − log π_old over the batch's OPD tokens (null without any). */
function teacherAdvantageStats(batch: BatchItem[]): StepMetrics['teacher_advantage'] {
  const d: number[] = [];
  for (const { sample, turn } of batch) {
    if (!sample.teacherLogprobs) continue;
    sample.teacherLogprobs.forEach((t, i) => {
      const x = t - turn.responseLogprobs[i];
      if (Number.isFinite(x)) d.push(x);
    });
  }
  if (!d.length) return null;
  const mean = d.reduce((a, b) => a + b, 0) / d.length;
  const std = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / d.length);
  return { mean, std };
}
