import type { TrainingStatus } from '../protocol/training.js';
import type { TrainerContext } from './trainerContext.js';

/** The trainer's status as GET /api/training/status serves it. */
export function trainingStatus(ctx: TrainerContext): TrainingStatus {
  const { config, store } = ctx;
  const last = store.steps(ctx.lastStep - 1).at(-1);
  return {
    method: config.method,
    state: config.method === 'off' ? 'off' : ctx.paused ? 'paused' : ctx.state,
    queued_samples: store.queuedCount(),
    step: ctx.lastStep,
    adapter_version: ctx.policy.version,
    last_step: last ? { ...last.metrics, step: last.step, skipped: last.skipped, skip_reason: last.skipReason } : null,
    ...(ctx.error ? { error: ctx.error } : {}),
    competence_gate: {
      on: ctx.gate.on(config),
      detail: ctx.gate.describe(config),
      reference_accuracy: ctx.gate.on(config) ? (store.competenceReference()?.accuracy ?? null) : null,
      held_back: store.checkpoints().filter((c) => c.competence?.held_back).length,
    },
  };
}
