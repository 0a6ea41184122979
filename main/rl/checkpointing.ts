import { checkpointsToDelete, deleteCheckpointDir } from './checkpointFiles.js';
import { gateAfterRollback } from './gate/checkpointGate.js';
import { restoreCheckpoint } from './restoreCheckpoint.js';
import type { TrainerContext } from './trainerContext.js';
import { TrainingConfigError } from './trainingConfig.js';

/**
 * At start: trains and serves from the live checkpoint. One that does not load leaves the base
 * model live, with the reason in the status.
 */
export function restoreLiveCheckpoint(ctx: TrainerContext): void {
  const id = ctx.policy.checkpoint;
  if (!id) return;
  try {
    restoreCheckpoint(ctx, id);
  } catch (err) {
    const message = `the live checkpoint ${id} does not load (${(err as Error).message}); serving and training from the base model`;
    ctx.setError(message);
    ctx.log(message);
    ctx.policy.startFromBase();
  }
}

/** Makes a checkpoint ('base' for the base model) the live policy as a new version; training continues from it. */
export async function rollbackTo(ctx: TrainerContext, id: string): Promise<{ version: number; checkpoint: string | null }> {
  const { store, policy } = ctx;
  const target = id === 'base' ? null : id;
  if (target) {
    if (!store.checkpoint(target)) throw new TrainingConfigError(`no checkpoint '${id}'`, 'id', 404);
    restoreCheckpoint(ctx, target);
  } else {
    policy.clear();
  }
  const version = store.maxVersion() + 1;
  store.recordRollback(target, version, Date.now());
  gateAfterRollback(ctx, target);
  await policy.goLive(version, target, 'rollback');
  ctx.log(`rolled back to ${target ?? 'the base model'} as adapter version ${version}`);
  ctx.publishStatus();
  return { version, checkpoint: target };
}

/** Deletes the checkpoints the retention policy gives up: their rows, then their folders. */
export function applyRetention(ctx: TrainerContext): void {
  const { store } = ctx;
  // The reference's checkpoints stay too: an unconfirmed rise is checked against them (gate/confirmReference.ts).
  const ref = store.competenceReference();
  const spared = [ctx.policy.checkpoint, ref?.source, ref?.floor?.source];
  const doomed = checkpointsToDelete(store.checkpoints(), ctx.config.keep_checkpoints, spared);
  if (!doomed.length) return;
  store.deleteCheckpointRows(doomed);
  for (const id of doomed) deleteCheckpointDir(ctx.opts.dataDir, id);
}
