import { policyGradientStep, type AdamW, type LoraAdapter } from '../engine/index.js';
import { effectiveKlCoef, type StepMetrics } from '../protocol/training.js';
import { applyRetention } from './checkpointing.js';
import { gateCheckpoint, gateOn, prepareGate } from './checkpointGate.js';
import { checkpointId, saveCheckpoint } from './checkpointFiles.js';
import { learningRateNow } from './learningRate.js';
import { replayItems } from './replay.js';
import { batchStats, buildTrainBatch } from './trainBatch.js';
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
  const batch = store.takeBatch(c.batch_size, ctx.policy.version, c.max_staleness);
  if (!batch.length) return;
  ctx.setState('training');
  const step = ctx.lastStep + 1;
  const ids = batch.map((b) => b.sample.id);
  let gated = false;
  try {
    await prepareGate(ctx);
    const t0 = performance.now();
    const { adapter, optimizer } = ctx.policy.trainable(ctx.model.config, c, step);
    const lr = learningRateNow(ctx);
    const trainBatch = await buildTrainBatch(ctx.model, c, [...batch, ...replayItems(ctx, step)]);
    const r = policyGradientStep(ctx.model.lm, adapter, optimizer, trainBatch, {
      epsLow: c.eps_low,
      epsHigh: c.eps_high,
      klCoef: effectiveKlCoef(c),
      entropyCoef: c.entropy_coef,
      topKReverseKl: c.opd_loss === 'topk_reverse_kl',
      learningRate: lr,
    });
    const base: Omit<StepMetrics, 'grad_norm' | 'step_ms'> = {
      ...r.metrics,
      learning_rate: lr,
      ...batchStats(batch),
      tokens: r.tokens,
    };
    if (r.skipped === 'loss') {
      recordSkipped(ctx, step, 'the loss is not finite', base, ids, `the loss is ${r.metrics.loss}`);
      return;
    }
    const metrics: StepMetrics = { ...base, grad_norm: r.gradNorm!, step_ms: performance.now() - t0 };
    if (r.skipped === 'gradients') {
      recordSkipped(ctx, step, 'the gradients are not finite', metrics, ids, 'non-finite gradient norm');
      return;
    }
    gated = commitStep(ctx, step, metrics, ids, adapter, optimizer);
  } catch (err) {
    store.releaseBatch(ids);
    throw err;
  }
  // The step is recorded: a failing check leaves the checkpoint pending (retried), never the samples queued again.
  if (gated) await gateCheckpoint(ctx, store.checkpoint(checkpointId(step))!, ctx.policy.adapter!);
  applyRetention(ctx);
}

function recordSkipped(
  ctx: TrainerContext,
  step: number,
  reason: string,
  metrics: Partial<StepMetrics>,
  ids: number[],
  detail: string,
): void {
  ctx.store.recordSkippedStep(step, reason, metrics, ids, Date.now());
  ctx.lastStep = step;
  ctx.log(`step ${step} skipped: ${detail}; the adapter is unchanged`);
}

/**
 * Saves the step's checkpoint and records the step; makes its adapter the live version, or, with
 * the competence gate on, leaves it waiting for the gate (returns true then; checkpointGate.ts).
 */
function commitStep(
  ctx: TrainerContext,
  step: number,
  metrics: StepMetrics,
  ids: number[],
  adapter: LoraAdapter,
  optimizer: AdamW,
): boolean {
  const { store, policy } = ctx;
  const version = store.maxVersion() + 1;
  const id = checkpointId(step);
  const a = adapter.config;
  const lora = { r: a.r, alpha: a.alpha, targets: [...a.targets], dropout: a.dropout };
  const meta = { id, step, adapter_version: version, parent_id: policy.checkpoint, metrics, lora };
  saveCheckpoint(ctx.opts.dataDir, id, adapter, optimizer, meta, ctx.model.name);
  const now = Date.now();
  const gated = gateOn(ctx);
  store.commitStep({
    step,
    version,
    checkpoint: {
      id,
      step,
      adapterVersion: version,
      parentId: policy.checkpoint,
      createdAt: now,
      metrics,
      samples: metrics.samples,
      lora,
      gatePending: gated,
    },
    sampleIds: ids,
    now,
  });
  ctx.lastStep = step;
  if (!gated) {
    policy.version = version;
    policy.checkpoint = id;
    ctx.emit(policy.event());
  }
  ctx.log(
    `step ${step}: loss ${metrics.loss.toFixed(4)}, ${metrics.samples.total} samples, ${metrics.tokens} tokens, ${metrics.step_ms.toFixed(0)} ms -> ${gated ? `checkpoint ${id}, checked before it goes live` : `adapter version ${version}`}`,
  );
  return gated;
}
