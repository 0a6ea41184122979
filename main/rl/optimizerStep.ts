import { policyGradientStep, type AdamW, type LoraAdapter, type PolicyStepResult, type TrainBatch } from '../engine/index.js';
import { effectiveKlCoef, type StepMetrics } from '../protocol/training.js';
import { applyRetention } from './checkpointing.js';
import { gateCheckpoint, gateOn, prepareGate } from './gate/checkpointGate.js';
import { checkpointId, saveCheckpoint } from './checkpointFiles.js';
import { batchStats, buildTrainBatch, refreshStale } from './trainBatch.js';
import type { TrainerContext } from './trainerContext.js';

/**
 * One optimizer step on the oldest `batch_size` queued samples: the batch goes through the
 * engine's policy-gradient step, then a checkpoint is saved, the step is recorded and the new
 * adapter version is announced. A step whose loss or gradients are not finite is recorded as
 * skipped (its samples dropped) and the adapter stays as it was. On any error the samples go back
 * to the queue.
 */
export async function runOptimizerStep(ctx: TrainerContext): Promise<void> {
  const { config: c, store } = ctx;
  const taken = store.takeBatch(c.batch_size, ctx.policy.version, c.max_staleness, ctx.judgeHintCutoff());
  if (!taken.length) return;
  ctx.setState('training');
  const step = ctx.lastStep + 1;
  const ids = taken.map((b) => b.sample.id);
  const turnIds = [...new Set(taken.map((b) => b.turn.id))];
  let gated = false;
  try {
    await prepareGate(ctx);
    const t0 = performance.now();
    const { adapter, optimizer } = ctx.policy.trainable(ctx.model.config, c, step);
    const batch = await refreshStale(ctx.model, adapter, taken);
    const stale = taken.filter((b) => b.stale).length;
    if (stale) ctx.log(`step ${step}: re-scored ${stale} sample(s) older than ${c.max_staleness} versions under the current adapter`);
    const lr = c.learning_rate;
    const trainBatch = await buildTrainBatch(ctx.model, c, batch);
    const r = await policyPasses(ctx, adapter, optimizer, trainBatch, lr);
    const base: Omit<StepMetrics, 'grad_norm' | 'step_ms'> = {
      ...r.metrics,
      learning_rate: lr,
      ...batchStats(batch),
      tokens: r.tokens,
    };
    const done = { step, ids, turnIds };
    if (r.skipped === 'loss') {
      recordSkipped(ctx, done, 'the loss is not finite', { ...base, step_ms: performance.now() - t0 }, `the loss is ${r.metrics.loss}`);
      return;
    }
    const metrics: StepMetrics = { ...base, grad_norm: r.gradNorm!, step_ms: performance.now() - t0 };
    if (r.skipped === 'gradients') {
      recordSkipped(ctx, done, 'the gradients are not finite', metrics, 'non-finite gradient norm');
      return;
    }
    gated = await commitStep(ctx, done, metrics, adapter, optimizer);
  } catch (err) {
    store.releaseBatch(ids);
    throw err;
  }
  // The step is recorded: a failing check leaves the checkpoint pending (retried), never the samples queued again.
  if (gated) await gateCheckpoint(ctx, store.checkpoint(checkpointId(step))!, ctx.policy.adapter!);
  applyRetention(ctx);
}

/**
 * `ppo_epochs` optimizer passes over one batch. Every pass compares with the rollout log-probs, so
 * from the second pass on the ratio clip bounds how far each token moves. A pass whose loss or
 * gradients are not finite leaves the adapter as the passes before it left it and ends the step:
 * the result is the first pass's when nothing was applied, else the last applied pass's.
 */
async function policyPasses(
  ctx: TrainerContext,
  adapter: LoraAdapter,
  optimizer: AdamW,
  batch: TrainBatch,
  learningRate: number,
): Promise<PolicyStepResult> {
  const c = ctx.config;
  const cfg = {
    epsLow: c.eps_low,
    epsHigh: c.eps_high,
    klCoef: effectiveKlCoef(c),
    entropyCoef: c.entropy_coef,
    topKReverseKl: c.opd_loss === 'topk_reverse_kl',
    learningRate,
  };
  let applied: PolicyStepResult | null = null;
  for (let pass = 0; pass < c.ppo_epochs; pass++) {
    const r = await policyGradientStep(ctx.model.lm, adapter, optimizer, batch, cfg);
    if (r.skipped) return applied ?? r;
    applied = r;
  }
  return applied!;
}

/** The step being finished: its number, the samples it took and the turns they came from. */
interface DoneStep {
  step: number;
  ids: number[];
  turnIds: string[];
}

function recordSkipped(ctx: TrainerContext, s: DoneStep, reason: string, metrics: Partial<StepMetrics>, detail: string): void {
  ctx.store.recordSkippedStep(s.step, reason, metrics, s.ids, Date.now());
  ctx.stepRecorded(s.step);
  ctx.log(`step ${s.step} skipped: ${detail}; the adapter is unchanged`);
  emitStep(ctx, s, metrics, reason);
  for (const turn_id of s.turnIds)
    ctx.emit({ type: 'event', event: { event: 'sample.dropped', data: { turn_id, reason: `step ${s.step} was skipped: ${reason}` } } });
}

/**
 * Saves the step's checkpoint and records the step; makes its adapter the live version, or, with
 * the competence gate on, leaves it waiting for the gate (returns true then; gate/checkpointGate.ts).
 */
async function commitStep(
  ctx: TrainerContext,
  s: DoneStep,
  metrics: StepMetrics,
  adapter: LoraAdapter,
  optimizer: AdamW,
): Promise<boolean> {
  const { store, policy } = ctx;
  const { step } = s;
  const version = store.maxVersion() + 1;
  const id = checkpointId(step);
  const a = adapter.config;
  const lora = { r: a.r, alpha: a.alpha, targets: [...a.targets], dropout: a.dropout };
  const parent = policy.checkpoint;
  const meta = { id, step, adapter_version: version, parent_id: parent, metrics, lora };
  await saveCheckpoint(ctx.opts.dataDir, id, adapter, optimizer, meta, ctx.model.name);
  const now = Date.now();
  const gated = gateOn(ctx);
  store.commitStep({
    step,
    version,
    checkpoint: {
      id,
      step,
      adapterVersion: version,
      parentId: parent,
      createdAt: now,
      metrics,
      samples: metrics.samples,
      lora,
      gatePending: gated,
    },
    sampleIds: s.ids,
    now,
  });
  ctx.stepRecorded(step);
  emitStep(ctx, s, metrics, null);
  const summary = { loss: metrics.loss, reward_mean: metrics.mean_reward, samples: metrics.samples.total, tokens: metrics.tokens };
  ctx.emit({
    type: 'event',
    event: { event: 'checkpoint.saved', data: { checkpoint_id: id, version, parent, step, metrics: summary, competence: null } },
  });
  if (!gated) await policy.goLive(version, id, 'trained');
  ctx.log(
    `step ${step}: loss ${metrics.loss.toFixed(4)}, ${metrics.samples.total} samples, ${metrics.tokens} tokens, ${metrics.step_ms.toFixed(0)} ms -> ${gated ? `checkpoint ${id}, checked before it goes live` : `adapter version ${version}`}`,
  );
  return gated;
}

/** The `train.step` event of a step, taken or skipped. */
function emitStep(ctx: TrainerContext, s: DoneStep, m: Partial<StepMetrics>, skipReason: string | null): void {
  const data = {
    step: s.step,
    loss: finiteOrNull(m.loss),
    reward_mean: m.mean_reward ?? null,
    kl: finiteOrNull(m.kl),
    clip_frac: finiteOrNull(m.clip_fraction),
    lr: m.learning_rate ?? ctx.config.learning_rate,
    samples: s.ids.length,
    tokens: m.tokens ?? 0,
    step_seconds: (m.step_ms ?? 0) / 1000,
    skipped: skipReason !== null,
    skip_reason: skipReason,
    turn_ids: s.turnIds,
  };
  ctx.emit({ type: 'event', event: { event: 'train.step', data } });
}

const finiteOrNull = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x : null);
