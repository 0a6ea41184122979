import fs from 'node:fs';
import { checkpointDir } from '../../../store/checkpointPaths.js';
import { ApiError } from '../../apiError.js';
import type { ServerContext } from '../../serverContext.js';

/**
 * The adapter version a request asked for with the body field `adapter` (to compare versions side
 * by side): undefined for the live one; otherwise the version is held for the request (loaded
 * from the checkpoint's folder when the worker does not have it) and released when it ends.
 */
export async function reserveAdapter(ctx: ServerContext, choice: string | undefined): Promise<number | undefined> {
  if (choice === undefined || choice === 'live') return undefined;
  if (choice === 'base') return ctx.engine.reserveAdapter({ version: 0, lora: null, tensors: null });
  const cp = ctx.store.checkpoint(choice);
  if (!cp)
    throw new ApiError(
      404,
      `no checkpoint '${choice}'; use "live", "base" or an id from GET /api/checkpoints`,
      'invalid_request_error',
      'not_found',
      'adapter',
    );
  const dir = checkpointDir(ctx.dataDir, cp.id);
  if (!fs.existsSync(dir))
    throw new ApiError(
      409,
      `checkpoint '${choice}' is listed but its folder ${dir} is gone`,
      'invalid_request_error',
      'checkpoint_missing',
      'adapter',
    );
  try {
    return await ctx.engine.reserveAdapter({ version: cp.adapterVersion, lora: null, tensors: null, dir });
  } catch (err) {
    throw new ApiError(500, (err as Error).message, 'server_error', 'adapter_failed', 'adapter');
  }
}
