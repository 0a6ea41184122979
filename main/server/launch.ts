import path from 'node:path';
import type { BackendName } from '../engine/backend.js';
import type { TrainingConfigPatch } from '../protocol/training.js';
import { DB_FILE, openDatabase } from '../store/database.js';
import { LearnStore } from '../store/learnStore.js';
import { ClawLoopServer } from './clawloopServer.js';
import type { ServerOptions } from './serverOptions.js';
import { TrainerClient } from './trainerClient.js';
import { WorkerInferenceEngine } from './workerInferenceEngine.js';

export interface LaunchOptions {
  modelDir: string;
  dataDir: string;
  backend?: BackendName;
  /** Training settings that override the stored ones (command-line flags). */
  trainingPatch?: TrainingConfigPatch;
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
}

/**
 * Starts everything `clawloop serve` runs: the inference worker and the trainer (each loads the
 * model; adapters go from the trainer to the inference worker), then the HTTP server. On failure
 * whatever started is stopped again.
 */
export async function launchClawLoop(o: LaunchOptions): Promise<Launched> {
  const db = openDatabase(path.join(o.dataDir, DB_FILE));
  let engine: WorkerInferenceEngine | null = null;
  let trainer: TrainerClient | null = null;
  try {
    o.log(`clawloop: loading ${o.modelDir}`);
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
        log: o.log,
        onAdapter: (a) => engine?.setAdapter(a) ?? Promise.reject(new Error('the inference engine is not running')),
      }),
    ]);
    if (started[0].status === 'fulfilled') engine = started[0].value;
    if (started[1].status === 'fulfilled') trainer = started[1].value;
    const failed = started.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    if (failed) throw failed.reason;
  } catch (err) {
    await engine?.close({ abort: true });
    await trainer?.stop();
    db.close();
    throw err;
  }
  const eng = engine!;
  const tr = trainer!;
  eng.info.backendLog.forEach((l) => o.log(l));
  await eng.setAdapter(tr.initialAdapter).catch((err: Error) => {
    tr.adapterError = err.message;
    o.log(`clawloop: ${err.message}; serving the base model until the next adapter`);
  });
  let server: ClawLoopServer;
  try {
    server = await ClawLoopServer.start({
      engine: eng,
      store: new LearnStore(db),
      trainer: tr,
      dataDir: o.dataDir,
      options: o.options,
      log: o.log,
    });
  } catch (err) {
    await eng.close({ abort: true });
    await tr.stop();
    db.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${o.options.port} on ${o.options.host} is in use; choose another with --port`);
    throw err;
  }
  let closed: Promise<void> | null = null;
  return {
    server,
    engine: eng,
    trainer: tr,
    close(opts = {}) {
      closed ??= (async () => {
        await server.close(opts);
        await tr.stop();
        db.close();
      })();
      return closed;
    },
  };
}
