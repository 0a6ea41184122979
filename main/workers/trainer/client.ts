import type { BackendName } from '../../engine/index.js';
import { prepareGpuEnvironment } from '../../engine/gpu/index.js';
import type { TrainingConfig, TrainingConfigPatch, TrainingStatus } from '../../protocol/training.js';
import type { NewEvent } from '../../protocol/events.js';
import type { AdapterPayload } from '../inference/messages.js';
import type { EventBus } from '../../server/eventBus.js';
import type { FromTrainerWorker, ToTrainerWorker, TrainerWorkerData } from './messages.js';
import { WorkerRpc } from '../workerRpc.js';

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
  /** Start from the default settings, forgetting the stored ones (clawloop serve --reset-training-config). */
  resetConfig?: boolean;
  /** A new live adapter: hand it to the inference engine. */
  onAdapter: (a: AdapterPayload) => Promise<void>;
  log?: (line: string) => void;
}

/** The HTTP thread's handle on the trainer worker: commands, the latest status, adapter announcements. */
export class TrainerClient {
  private readonly rpc: WorkerRpc<ToTrainerWorker, FromTrainerWorker>;
  status!: TrainingStatus;
  config!: TrainingConfig;
  /** The adapter that was live when the trainer started (restored from the data folder). */
  initialAdapter!: AdapterPayload;
  private stopped: Promise<void> | null = null;
  private events: EventBus | null = null;
  private inbox: Promise<void> = Promise.resolve();
  /** Why the newest adapter could not be served (the previous one still is); null when all is well. */
  adapterError: string | null = null;
  /** Events that arrived before a bus was attached (the trainer's start-up), published on attach. */
  private readonly early: NewEvent[] = [];

  private constructor(private readonly opts: TrainerClientOptions) {
    const data: TrainerWorkerData = {
      modelDir: opts.modelDir,
      dataDir: opts.dataDir,
      backend: opts.backend,
      configPatch: opts.configPatch,
      resetConfig: opts.resetConfig,
    };
    prepareGpuEnvironment();
    this.rpc = new WorkerRpc({
      url: new URL('./worker.js', import.meta.url),
      workerData: data,
      name: 'the trainer',
      // In order: a status or reply that follows a new adapter is applied once that adapter serves.
      onMessage: (m) => (this.inbox = this.inbox.then(() => this.handle(m))),
      onLost: (reason) => this.onLost(reason),
      lostError: () => new TrainerCommandError('the trainer stopped', 503, null),
    });
  }

  /** Starts the worker; resolves when the trainer restored its state (rejects with the reason otherwise). */
  static async start(opts: TrainerClientOptions): Promise<TrainerClient> {
    const c = new TrainerClient(opts);
    const ready = await c.rpc.ready;
    c.status = ready.status;
    c.config = ready.config;
    c.initialAdapter = ready.adapter;
    return c;
  }

  private onLost(reason: string): void {
    this.opts.log?.(`clawloop: ${reason}`);
    this.updateStatus({ ...this.status, state: 'error', error: reason });
    this.publish({ event: 'error', data: { where: 'trainer', message: reason } });
  }

  private async handle(m: FromTrainerWorker): Promise<void> {
    switch (m.type) {
      case 'fatal':
        this.opts.log?.(`clawloop: the trainer failed: ${m.message}`);
        this.publish({ event: 'error', data: { where: 'trainer', message: m.message } });
        break;
      case 'adapter':
        await this.serveAdapter(m);
        break;
      case 'status':
        this.updateStatus(m.status);
        break;
      case 'event':
        this.publish(m.event);
        break;
      case 'log':
        this.opts.log?.(m.line);
        break;
      case 'reply':
        if (m.ok) this.rpc.resolve(m.id, m.value);
        else this.rpc.reject(m.id, new TrainerCommandError(m.message, m.status, m.field));
        break;
    }
  }

  /**
   * Hands a new adapter to serving and announces it once it serves; a version that cannot be
   * loaded is reported, and the last good one keeps serving.
   */
  private async serveAdapter(m: Extract<FromTrainerWorker, { type: 'adapter' }>): Promise<void> {
    try {
      await this.opts.onAdapter(m.adapter);
      this.adapterError = null;
      this.publish({ event: 'adapter.live', data: { version: m.adapter.version, checkpoint_id: m.checkpointId, reason: m.reason } });
    } catch (err) {
      this.adapterError = (err as Error).message;
      this.opts.log?.(`clawloop: ${this.adapterError}`);
      this.publish({ event: 'error', data: { where: 'inference', message: this.adapterError } });
    }
  }

  /** Sends the trainer's events (and its state changes) to the event bus from now on. */
  attachEvents(bus: EventBus): void {
    this.events = bus;
    for (const e of this.early.splice(0)) bus.publish(e);
  }

  private publish(e: NewEvent): void {
    if (this.events) this.events.publish(e);
    else this.early.push(e);
  }

  /** A `training.state` event with the current status. */
  publishState(): void {
    const s = this.status;
    this.publish({
      event: 'training.state',
      data: { state: s.state, message: s.error ?? null, queue_length: s.queued_samples, pending_turns: s.pending_turns ?? 0 },
    });
  }

  private updateStatus(next: TrainingStatus): void {
    const prev = this.status;
    // Once stopping, the state says so to the end, whatever the worker reports meanwhile.
    const now: TrainingStatus = this.stopped ? { ...next, state: 'stopping' } : next;
    this.status = now;
    if (prev && (prev.state !== now.state || prev.error !== now.error || prev.queued_samples !== now.queued_samples)) this.publishState();
  }

  private call<T>(m: TrainerCommand): Promise<T> {
    if (this.stopped) return Promise.reject(new TrainerCommandError('the trainer is stopping', 503, null));
    return this.rpc.call<T>((id) => ({ ...m, id }) as ToTrainerWorker);
  }

  /** Something the trainer may act on happened (a turn, a next state, feedback, a session end). */
  wake(): void {
    if (!this.stopped) this.rpc.post({ type: 'wake' });
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
    this.stopped = this.rpc.stop({ type: 'stop' });
    if (this.status) this.updateStatus(this.status);
    return this.stopped;
  }

  /**
   * Stops the worker at once, mid-step if need be (a second Ctrl-C). Nothing stored is lost: a
   * step is written only when it completes (checkpoint folder renamed into place, then its rows),
   * so a cut step is simply not recorded, and its samples are queued again at the next start.
   */
  terminate(): Promise<void> {
    if (!this.stopped) {
      this.stopped = this.rpc.terminate();
      if (this.status) this.updateStatus(this.status);
      return this.stopped;
    }
    return Promise.all([this.stopped, this.rpc.terminate()]).then(() => undefined);
  }
}
