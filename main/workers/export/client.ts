import type { ExportWorkerData, FromExportWorker } from './messages.js';
import { WorkerRpc, WorkerStartError } from '../workerRpc.js';
import { ApiError } from '../../server/apiError.js';

type ExportDone = Extract<FromExportWorker, { type: 'done' }>;

/**
 * Writes a checkpoint merged into its base model as `model.gguf` in `data.dir`, in a worker thread
 * of its own (it loads the model and does the math; serving and training go on). Resolves with the
 * file names written.
 */
export async function exportGguf(data: ExportWorkerData, log: (line: string) => void): Promise<string[]> {
  // A one-shot worker: its ready message is its result.
  const rpc = new WorkerRpc<never, FromExportWorker, ExportDone>({
    url: new URL('./worker.js', import.meta.url),
    workerData: data,
    name: 'the GGUF export',
    readyType: 'done',
  });
  const done = await rpc.ready.catch((err: WorkerStartError) => {
    if (err.kind === 'fatal')
      throw new ApiError(400, `the GGUF export failed: ${err.detail}`, 'invalid_request_error', 'export_failed', 'format');
    if (err.kind === 'error') throw new ApiError(500, `the GGUF export crashed: ${err.detail}`, 'server_error', 'export_failed');
    throw new ApiError(500, `the GGUF export stopped (exit code ${err.detail})`, 'server_error', 'export_failed');
  });
  done.warnings.forEach((w) => log(`clawloop: GGUF export: ${w}`));
  return done.files;
}
