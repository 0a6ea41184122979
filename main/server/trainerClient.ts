import { Worker } from 'node:worker_threads';
import type { BackendName } from '../engine/index.js';
import type { TrainingConfig, TrainingConfigPatch, TrainingStatus } from '../protocol/training.js';
import type { AdapterPayload } from '../workers/inferenceMessages.js';
import type { FromTrainerWorker, ToTrainerWorker, TrainerWorkerData } from '../workers/trainerMessages.js';

/** A command message without its id (the client numbers them). */
type TrainerCommand = Extract<ToTrainerWorker, { id: number }> extends infer C ? (C extends unknown ? Omit<C, 'id'> : never) : never;

/** A trainer command the worker refused; `status` is the HTTP status, `field` the offending field. */
export class TrainerCommandError extends Error {
  override name = 'TrainerCommandError';
  constructor(
    message: string,
    readonly status: number,
    readonly field: string | null,
  ) {
    super(message);
  }
}

export interface TrainerClientOptions {
  modelDir: string;
  dataDir: string;
  backend?: BackendName;
  configPatch?: TrainingConfigPatch;
  /** A new live adapter: hand it to the inference engine. */
  onAdapter: (a: AdapterPayload) => void;
  log?: (line: string) => void;
}

/** The HTTP thread's handle on the trainer worker: commands, the latest status, adapter announcements. */
export class TrainerClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  status!: TrainingStatus;
  config!: TrainingConfig;
  /** The adapter that was live when the trainer started (restored from the data folder). */
  initialAdapter!: AdapterPayload;
  private stopped: Promise<void> | null = null;

  private constructor(private readonly opts: TrainerClientOptions) {
    const data: TrainerWorkerData = {
      modelDir: opts.modelDir,
      dataDir: opts.dataDir,
      backend: opts.backend,
      configPatch: opts.configPatch,
    };
    this.worker = new Worker(new URL('../workers/trainerWorker.js', import.meta.url), { workerData: data });
  }

  /** Starts the worker; resolves when the trainer restored its state (rejects with the reason otherwise). */
  static start(opts: TrainerClientOptions): Promise<TrainerClient> {
    const c = new TrainerClient(opts);
    return new Promise((resolve, reject) => {
      let ready = false;
      c.worker.on('message', (m: FromTrainerWorker) => {
        switch (m.type) {
          case 'ready':
            ready = true;
            c.status = m.status;
            c.config = m.config;
            c.initialAdapter = m.adapter;
            resolve(c);
            break;
          case 'fatal':
            if (!ready) reject(new Error(`the trainer failed to start: ${m.message}`));
            else opts.log?.(`clawloop: the trainer failed: ${m.message}`);
            break;
          case 'adapter':
            opts.onAdapter(m.adapter);
            break;
          case 'status':
            c.status = m.status;
            break;
          case 'log':
            opts.log?.(m.line);
            break;
          case 'reply': {
            const p = c.pending.get(m.id);
            c.pending.delete(m.id);
            if (!p) break;
            if (m.ok) p.resolve(m.value);
            else p.reject(new TrainerCommandError(m.message, m.status, m.field));
            break;
          }
        }
      });
      c.worker.on('error', (err) => {
        if (!ready) reject(new Error(`the trainer failed to start: ${err.message}`));
        else {
          opts.log?.(`clawloop: the trainer crashed: ${err.message}`);
          c.status = { ...c.status, state: 'failed', error: err.message };
        }
      });
      c.worker.on('exit', (code) => {
        if (!ready) reject(new Error(`the trainer exited with code ${code} while starting`));
        for (const p of c.pending.values()) p.reject(new TrainerCommandError('the trainer stopped', 503, null));
        c.pending.clear();
      });
    });
  }

  private post(m: ToTrainerWorker): void {
    this.worker.postMessage(m);
  }

  private call<T>(m: TrainerCommand): Promise<T> {
    if (this.stopped) return Promise.reject(new TrainerCommandError('the trainer is stopping', 503, null));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.post({ ...m, id } as ToTrainerWorker);
    });
  }

  /** Something the trainer may act on happened (a turn, a next state, feedback, a session end). */
  wake(): void {
    if (!this.stopped) this.post({ type: 'wake' });
  }

  async setConfig(patch: unknown): Promise<TrainingConfig> {
    this.config = await this.call<TrainingConfig>({ type: 'setConfig', patch });
    return this.config;
  }

  setPaused(paused: boolean): Promise<TrainingStatus> {
    return this.call<TrainingStatus>({ type: 'setPaused', paused });
  }

  rollback(checkpoint: string): Promise<{ version: number; checkpoint: string | null }> {
    return this.call({ type: 'rollback', checkpoint });
  }

  /** Stops after the trainer's current work item (a step in progress completes). */
  stop(): Promise<void> {
    if (this.stopped) return this.stopped;
    this.stopped = new Promise<void>((resolve) => {
      this.worker.once('exit', () => resolve());
      this.post({ type: 'stop' });
    });
    return this.stopped;
  }
}
