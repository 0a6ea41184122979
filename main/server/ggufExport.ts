import { Worker } from 'node:worker_threads';
import type { ExportWorkerData, FromExportWorker } from '../workers/exportMessages.js';
import { ApiError } from './apiError.js';

/**
 * Writes a checkpoint merged into its base model as `model.gguf` in `data.dir`, in a worker thread
 * of its own (it loads the model and does the math; serving and training go on). Resolves with the
 * file names written.
 */
export function exportGguf(data: ExportWorkerData, log: (line: string) => void): Promise<string[]> {
  const worker = new Worker(new URL('../workers/exportWorker.js', import.meta.url), { workerData: data });
  return new Promise((resolve, reject) => {
    let answered = false;
    worker.once('message', (m: FromExportWorker) => {
      answered = true;
      if (m.type === 'failed')
        return reject(new ApiError(400, `the GGUF export failed: ${m.message}`, 'invalid_request_error', 'export_failed', 'format'));
      m.warnings.forEach((w) => log(`clawloop: GGUF export: ${w}`));
      resolve(m.files);
    });
    worker.once('error', (err) => reject(new ApiError(500, `the GGUF export crashed: ${err.message}`, 'server_error', 'export_failed')));
    worker.once('exit', (code) => {
      if (!answered) reject(new ApiError(500, `the GGUF export stopped (exit code ${code})`, 'server_error', 'export_failed'));
    });
  });
}
