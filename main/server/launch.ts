import path from 'node:path';
import type { BackendName } from '../engine/index.js';
import type { TrainingConfigPatch } from '../protocol/training.js';
import { DB_FILE, openDatabase } from '../store/database.js';
import { LearnStore } from '../store/learnStore.js';
import { ClawLoopServer } from './clawloopServer.js';
import type { ServerOptions } from './serverOptions.js';
import { TrainerClient } from '../workers/trainer/client.js';
import { WorkerInferenceEngine } from '../workers/inference/client.js';

export interface LaunchOptions {
  modelDir: string;
  dataDir: string;
  backend?: BackendName;
  /** Training settings that override the stored ones (command-line flags). */
  trainingPatch?: TrainingConfigPatch;
  /** Forget the stored training settings. */
  resetTrainingConfig?: boolean;
  options: Partial<ServerOptions>;
  log: (line: string) => void;
}

/** A running ClawLoop: the HTTP server, its inference worker and trainer, and the database. */
export interface Launched {
  server: ClawLoopServer;
  engine: WorkerInferenceEngine;
  trainer: TrainerClient;
  /** Stops serving (requests in flight finish unless `abort`), stops the trainer, closes the database. */
  close(opts?: { abort?: boolean }): Promise<void>;
  /** Stops at once (a second Ctrl-C): the trainer worker is terminated mid-step, requests in flight are aborted. */
  abort(): Promise<void>;
}

/** The inference worker and the trainer, started side by side (each loads the model); on failure both stop again. */
async function startWorkers(o: LaunchOptions): Promise<{ engine: WorkerInferenceEngine; trainer: TrainerClient }> {
  let engine: WorkerInferenceEngine | null = null;
  const started = await Promise.allSettled([
    WorkerInferenceEngine.start({
      modelDir: o.modelDir,
      backend: o.backend,
      maxQueue: o.options.maxQueue,
      maxBatch: o.options.maxBatch,
      log: o.log,
    }),
    TrainerClient.start({
      modelDir: o.modelDir,
      dataDir: o.dataDir,
      backend: o.backend,
      configPatch: o.trainingPatch,
      resetConfig: o.resetTrainingConfig,
      log: o.log,
      onAdapter: (a) => engine?.setAdapter(a) ?? Promise.reject(new Error('the inference engine is not running')),
    }),
  ]);
  if (started[0].status === 'fulfilled') engine = started[0].value;
  const trainer = started[1].status === 'fulfilled' ? started[1].value : null;
  const failed = started.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
  if (failed) {
    await engine?.close({ abort: true });
    await trainer?.stop();
    throw failed.reason;
  }
  return { engine: engine!, trainer: trainer! };
}

/**
 * Starts everything `clawloop serve` runs: the inference worker and the trainer (adapters go from
 * the trainer to the inference worker), then the HTTP server. On failure whatever started is
 * stopped again and the database closed.
 */
export async function launchClawLoop(o: LaunchOptions): Promise<Launched> {
  const db = openDatabase(path.join(o.dataDir, DB_FILE));
  o.log(`clawloop: loading ${o.modelDir}`);
  const { engine, trainer } = await startWorkers(o).catch((err) => {
    db.close();
    throw err;
  });
  engine.info.backendLog.forEach((l) => o.log(l));
  await engine.setAdapter(trainer.initialAdapter).catch((err: Error) => {
    trainer.adapterError = err.message;
    o.log(`clawloop: ${err.message}; serving the base model until the next adapter`);
  });
  let server: ClawLoopServer;
  try {
    server = await ClawLoopServer.start({ engine, store: new LearnStore(db), trainer, dataDir: o.dataDir, options: o.options, log: o.log });
  } catch (err) {
    await engine.close({ abort: true });
    await trainer.stop();
    db.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${o.options.port} on ${o.options.host} is in use; choose another with --port`);
    throw err;
  }
  return { server, engine, trainer, ...shutdown(server, trainer, db, o.log) };
}

/**
 * How a running ClawLoop stops. Training stops before the port closes: while a step finishes the
 * app still reaches the core and says so (a `server.stopping` event; new requests are refused
 * with the same words), and nothing can start another ClawLoop on the folder before this one is
 * done. `abort` (a second signal) terminates the trainer worker mid-step and aborts requests in
 * flight; the close under way then completes within moments.
 */
export function shutdown(
  server: Pick<ClawLoopServer, 'beginShutdown' | 'close'>,
  trainer: Pick<TrainerClient, 'status' | 'stop' | 'terminate'>,
  db: { close(): unknown },
  log: (line: string) => void,
): Pick<Launched, 'close' | 'abort'> {
  let closed: Promise<void> | null = null;
  let finishing: number | null = null;
  const close = (opts: { abort?: boolean } = {}) =>
    (closed ??= (async () => {
      const st = trainer.status;
      finishing = st.state === 'training' ? st.step + 1 : null;
      server.beginShutdown(
        finishing,
        finishing ? `ClawLoop is shutting down: finishing training step ${finishing}` : 'ClawLoop is shutting down',
      );
      if (finishing) {
        log(
          `clawloop: finishing training step ${finishing} before closing the port (on a CPU this can take a minute); new requests are refused meanwhile. Ctrl-C again stops at once (the step is then not recorded; its samples train in a later step)`,
        );
      }
      await trainer.stop();
      await server.close(opts);
      db.close();
    })());
  const abort = async () => {
    const closing = close({ abort: true });
    if (finishing) log(`clawloop: stopping training step ${finishing} at once; it is not recorded, its samples train in a later step`);
    await Promise.all([trainer.terminate(), server.close({ abort: true })]);
    await closing;
  };
  return { close, abort };
}
