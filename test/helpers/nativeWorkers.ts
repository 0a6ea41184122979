import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
// Type-only: erased at run time, but tsc checks this path, so a moved loader breaks the build here.
import type {} from '../../main/engine/backends/nativeAddon.js';

/** The compiled loader every engine thread uses, for child processes and workers to import. */
const ADDON_MODULE = fileURLToPath(import.meta.resolve('../../main/engine/backends/nativeAddon.js'));

export interface ThreadInfo {
  threads: number;
  blasThreads: number;
}

const run = promisify(execFile);

/** What the addon reports in a fresh process whose environment adds `env`. */
export async function addonInfoInProcess(env: Record<string, string>): Promise<ThreadInfo> {
  const script = `import(${JSON.stringify(ADDON_MODULE)}).then((m) => { const i = m.loadNativeAddon().info(); console.log(JSON.stringify({ threads: i.threads, blasThreads: i.blasThreads })); })`;
  const { stdout } = await run(process.execPath, ['-e', script], { env: { ...process.env, ...env } });
  return JSON.parse(stdout) as ThreadInfo;
}

/**
 * In a fresh process whose main thread never loads the addon, starts one worker per entry of
 * `threads` (each with that CLAWLOOP_THREADS, as the inference and trainer workers load the engine),
 * one after another, each staying alive; then asks the first worker again. Returns what the addon
 * reported in each worker when it loaded, and in the first worker at the end.
 */
export async function workersLoadingTheAddon(threads: string[]): Promise<{ loaded: ThreadInfo[]; firstAfterwards: ThreadInfo }> {
  const worker = `
    const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(ADDON_MODULE)}).then((m) => {
      const info = () => { const i = m.loadNativeAddon().info(); return { threads: i.threads, blasThreads: i.blasThreads }; };
      parentPort.postMessage(info());
      parentPort.on('message', () => parentPort.postMessage(info()));
    });`;
  const main = `
    const { Worker } = require('node:worker_threads');
    const next = (w) => new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject); });
    (async () => {
      const workers = [];
      const loaded = [];
      for (const n of ${JSON.stringify(threads)}) {
        const w = new Worker(${JSON.stringify(worker)}, { eval: true, env: { ...process.env, CLAWLOOP_THREADS: n } });
        workers.push(w);
        loaded.push(await next(w));
      }
      workers[0].postMessage('again');
      const firstAfterwards = await next(workers[0]);
      console.log(JSON.stringify({ loaded, firstAfterwards }));
      await Promise.all(workers.map((w) => w.terminate()));
    })().catch((err) => { console.error(err); process.exit(1); });`;
  const { stdout } = await run(process.execPath, ['-e', main]);
  return JSON.parse(stdout) as { loaded: ThreadInfo[]; firstAfterwards: ThreadInfo };
}
