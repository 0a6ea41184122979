import type { TrainerContext } from './trainerContext.js';

/**
 * Makes checkpoint `id` the trained policy; the LoRA settings follow the checkpoint's adapter.
 * Its own module because both checkpointing.ts (start, rollback) and gate/checkpointGate.ts (a held-back
 * candidate, a pending check) restore checkpoints, and checkpointing.ts also calls the gate.
 */
export function restoreCheckpoint(ctx: TrainerContext, id: string): void {
  ctx.policy.restore(ctx.opts.dataDir, id, ctx.model.config, ctx.config);
  const lora = ctx.policy.adapter!.config;
  ctx.applyConfig({ ...ctx.config, lora_rank: lora.r, lora_alpha: lora.alpha, lora_targets: lora.targets, lora_dropout: lora.dropout });
}
