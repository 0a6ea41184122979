import type { TrainerContext } from './trainerContext.js';

/**
 * The learning rate of the next step: `learning_rate`, times `lr_backoff` for each checkpoint
 * the competence gate held back in a row since the last one that went live (an update that cost
 * competence is retried more gently on the next batch). Counted from the stored verdicts, so it
 * survives a restart.
 */
export function learningRateNow(ctx: TrainerContext): number {
  const c = ctx.config;
  if (c.lr_backoff === null) return c.learning_rate;
  let heldBack = 0;
  for (const cp of [...ctx.store.checkpoints()].sort((a, b) => b.step - a.step)) {
    if (!cp.competence?.held_back) break;
    heldBack++;
  }
  return c.learning_rate * c.lr_backoff ** heldBack;
}
