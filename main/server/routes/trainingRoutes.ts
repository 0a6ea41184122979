import path from 'node:path';
import type { TrainingConfig } from '../../protocol/training.js';
import { ApiError } from '../apiError.js';
import { refuseLinksOut } from '../modelFolderLinks.js';
import type { Handler } from '../routeTypes.js';
import type { ServerContext } from '../serverContext.js';
import { TrainerCommandError, type TrainerClient } from '../../workers/trainer/client.js';

export function trainerOf(ctx: ServerContext): TrainerClient {
  if (!ctx.trainer) throw new ApiError(503, 'training is not running on this server', 'server_error', 'training_unavailable');
  return ctx.trainer;
}

/** A refused trainer command as an API error (its status and field kept). */
export function fromTrainer(err: unknown): unknown {
  if (!(err instanceof TrainerCommandError)) return err;
  return new ApiError(
    err.status,
    err.message,
    err.status >= 500 ? 'server_error' : 'invalid_request_error',
    err.status === 404 ? 'not_found' : 'invalid_value',
    err.field,
  );
}

/** Runs a trainer command; its refusal becomes the matching API error. */
export async function command<T>(ctx: ServerContext, f: (t: TrainerClient) => Promise<T>): Promise<T> {
  try {
    return await f(trainerOf(ctx));
  } catch (err) {
    throw fromTrainer(err);
  }
}

const MASK = '****';

/** The configuration as the API shows it: an endpoint judge's key is masked (it is never readable back). */
export function maskedConfig(c: TrainingConfig): TrainingConfig {
  const j = c.judge;
  if (j.kind !== 'endpoint' || !j.api_key) return c;
  return { ...c, judge: { ...j, api_key: `${MASK}${j.api_key.slice(-4)}` } };
}

/** A patch that sends the masked key back (e.g. the app saving the whole form) keeps the stored key. */
function unmasked(patch: Record<string, unknown>, current: TrainingConfig): Record<string, unknown> {
  const j = patch.judge as { kind?: string; api_key?: unknown } | undefined;
  const cur = current.judge;
  if (j?.kind !== 'endpoint' || typeof j.api_key !== 'string' || !j.api_key.startsWith(MASK) || cur.kind !== 'endpoint') return patch;
  return { ...patch, judge: { ...j, api_key: cur.api_key ?? null } };
}

export const trainingStatus: Handler<'training.status'> = (ctx) => {
  const t = trainerOf(ctx);
  const error = [t.status.error, t.adapterError].filter(Boolean).join('; ');
  return { ...t.status, pending_turns: ctx.store.pendingTurnCount(), ...(error ? { error } : {}) };
};

export const getTrainingConfig: Handler<'training.config.get'> = (ctx) => maskedConfig(trainerOf(ctx).config);

export const putTrainingConfig: Handler<'training.config.update'> = async (ctx, { body }) => {
  // A relative judge folder is the served model's own (as the trainer resolves it).
  if (body.judge?.kind === 'model') refuseLinksOut(path.resolve(ctx.engine.info.dir, body.judge.dir), 'judge');
  const config = await command(ctx, (t) => t.setConfig(unmasked(body, t.config)));
  return maskedConfig(config);
};

export const pauseTraining: Handler<'training.pause'> = (ctx) => command(ctx, (t) => t.setPaused(true));
export const resumeTraining: Handler<'training.resume'> = (ctx) => command(ctx, (t) => t.setPaused(false));
