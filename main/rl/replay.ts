import { Rand } from '../tasks/rand.js';
import type { BatchItem } from './trainBatch.js';
import type { TrainerContext } from './trainerContext.js';

/**
 * Replay (`replay_samples`): each step also trains on a few samples the live adapter already
 * learned from, picked with a seed from the step among the newest of them. They keep their
 * recorded rollout log-probs, so the clipped ratio bounds how far an old sample can pull.
 */
export function replayItems(ctx: TrainerContext, step: number): BatchItem[] {
  const k = ctx.config.replay_samples;
  if (!k) return [];
  const pool = ctx.store.replayPool(ctx.policy.checkpoint, 8 * k);
  return new Rand(step).shuffle(pool).slice(0, k);
}
