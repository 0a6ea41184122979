import fs from 'node:fs';
import type { CheckpointInfo } from '../../protocol/checkpoints.js';
import { checkpointDir } from '../../store/checkpointPaths.js';
import { ApiError } from '../apiError.js';
import { copyPeftAdapter, exportTarget } from '../exportTarget.js';
import { writeExport } from '../exportTemp.js';
import type { Handler } from '../routeTypes.js';
import type { ServerContext } from '../serverContext.js';
import { storageError } from '../storageError.js';
import { exportGguf } from '../../workers/export/client.js';
import { command, trainerOf } from './trainingRoutes.js';

export const listCheckpoints: Handler<'checkpoints.list'> = (ctx) => {
  const state = ctx.store.trainerState();
  const live = ctx.trainer ? state.liveCheckpointId : null;
  const data: CheckpointInfo[] = ctx.store.checkpoints().map((c) => ({
    id: c.id,
    step: c.step,
    adapter_version: c.adapterVersion,
    parent_id: c.parentId,
    created_at: c.createdAt,
    metrics: c.metrics,
    samples: c.samples,
    pinned: c.pinned,
    name: c.name ?? null,
    note: c.note ?? null,
    live: c.id === live,
    competence: c.competence ?? null,
  }));
  const rollbacks = ctx.store
    .rollbackVersions()
    .map((r) => ({ version: r.version, checkpoint_id: r.checkpointId, created_at: r.createdAt }));
  return { object: 'list', live_checkpoint: live, adapter_version: state.liveVersion, data, rollbacks };
};

/** A listed checkpoint whose folder is on disk (404 when unknown, 409 when its files are gone). */
function existingCheckpoint(ctx: ServerContext, id: string) {
  const cp = ctx.store.checkpoint(id);
  if (!cp) throw new ApiError(404, `no checkpoint '${id}'`, 'invalid_request_error', 'not_found', 'id');
  const dir = checkpointDir(ctx.dataDir, cp.id);
  if (!fs.existsSync(dir)) {
    throw new ApiError(
      409,
      `checkpoint '${id}' is listed but its folder ${dir} is gone; choose another checkpoint`,
      'invalid_request_error',
      'checkpoint_missing',
      'id',
    );
  }
  return { cp, dir };
}

export const rollbackCheckpoint: Handler<'checkpoints.rollback'> = async (ctx, { params }) => {
  trainerOf(ctx);
  if (params.id !== 'base') existingCheckpoint(ctx, params.id);
  const r = await command(ctx, (t) => t.rollback(params.id));
  return { checkpoint: r.checkpoint ?? 'base', adapter_version: r.version };
};

export const labelCheckpoint: Handler<'checkpoints.update'> = (ctx, { params, body }) => {
  if (!ctx.store.checkpoint(params.id)) throw new ApiError(404, `no checkpoint '${params.id}'`, 'invalid_request_error', 'not_found', 'id');
  const clean = (v: string | null | undefined) => (v === undefined ? undefined : v || null);
  ctx.store.setCheckpointLabel(params.id, { name: clean(body.name), note: clean(body.note) });
  const cp = ctx.store.checkpoint(params.id)!;
  return { checkpoint: cp.id, name: cp.name ?? null, note: cp.note ?? null };
};

export const pinCheckpoint: Handler<'checkpoints.pin'> = (ctx, { params, body }) => {
  const cp = ctx.store.checkpoint(params.id);
  if (!cp) throw new ApiError(404, `no checkpoint '${params.id}'`, 'invalid_request_error', 'not_found', 'id');
  ctx.store.setPinned(cp.id, body.pinned);
  return { checkpoint: cp.id, pinned: body.pinned };
};

/**
 * The default export folder's name, after what the user sees on Checkpoints: `v2`, or `v2-<name>`
 * for a named checkpoint (letters and digits of the name, lower case, at most 40 characters), with
 * `-gguf` for a GGUF file. A name taken by an earlier export gets `-copy-2`, `-copy-3`…
 */
export function exportFolderName(version: number, name: string | null, format: string): string {
  const slug = (name ?? '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join('-')
    .slice(0, 40)
    .replace(/-+$/, '');
  return [`v${version}`, slug, format === 'gguf' ? 'gguf' : ''].filter(Boolean).join('-');
}

export const exportCheckpoint: Handler<'checkpoints.export'> = async (ctx, { params, body, res }) => {
  const { cp, dir: source } = existingCheckpoint(ctx, params.id);
  const fallback = exportFolderName(cp.adapterVersion, cp.name ?? null, body.format);
  const target = exportTarget(ctx.dataDir, ctx.options.exportDirs, body.dir, fallback, (t) => ctx.exports.has(t));
  const release = ctx.exports.claim(target, cp.id);
  // A client that leaves while its GGUF export waits for the worker gives up its place.
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  try {
    const files = await writeExport(ctx.dataDir, target, (tmp) =>
      body.format === 'gguf'
        ? ctx.exports.withWorker(() =>
            exportGguf(
              { modelDir: ctx.engine.info.dir, checkpointDir: source, dir: tmp, name: `${ctx.engine.info.name}-${cp.id}` },
              ctx.log,
            ),
          )
        : copyPeftAdapter(source, tmp, ctx.engine.info.name),
    );
    return { checkpoint: cp.id, format: body.format, dir: target, files };
  } catch (err) {
    throw storageError(err, target);
  } finally {
    release();
  }
};
