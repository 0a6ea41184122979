import type { BackendName } from '../../engine/index.js';
import type { ChatGenerationRequest, ChatGenerationResult, PreparedPrompt } from '../../engine/index.js';
import type { AdapterPayload, FromInferenceWorker, InferenceWorkerData, ModelInfo, ToInferenceWorker } from './messages.js';
import { prepareGpuEnvironment } from '../../engine/gpu/index.js';
import { WorkerRpc, type WorkerStartError } from '../workerRpc.js';
import { AdapterVersions } from './adapterVersions.js';
import { InferenceError, QueueFullError, type GenerateHandlers, type InferenceEngine } from '../../server/inferenceEngine.js';

export interface WorkerEngineOptions {
  modelDir: string;
  backend?: BackendName;
  /** Bytes the worker's prefix cache may keep; 0 turns it off. Default: see InferenceWorkerData.prefixCacheBytes. */
  prefixCacheBytes?: number;
  /** Requests allowed to wait while `maxBatch` run; more get 429. Default 16. */
  maxQueue?: number;
  /** Requests generating at once, decoded as one batch. Default 8; 1 runs them one at a time. */
  maxBatch?: number;
  /** At shutdown, how long running requests get after being aborted before the worker is stopped. Default 10 s. */
  closeDeadlineMs?: number;
  /** Receives one-line status messages. */
  log?: (line: string) => void;
}

interface Job {
  id: number;
  /** The adapter version the request was admitted with. */
  version: number;
  request: ChatGenerationRequest;
  handlers: GenerateHandlers;
  resolve: (r: ChatGenerationResult) => void;
  reject: (e: Error) => void;
  enqueuedAt: number;
  onAbort?: () => void;
}

/**
 * Runs the model in a worker thread and feeds it up to `maxBatch` requests at a time, first come
 * first served; the worker decodes them together. A job counts as running only once the worker
 * has it, and every way a job ends frees its slot. A crashed worker fails the requests it held and
 * is restarted for the next ones.
 */
export class WorkerInferenceEngine implements InferenceEngine {
  private rpc!: WorkerRpc<ToInferenceWorker, FromInferenceWorker>;
  private readonly queue: Job[] = [];
  private readonly running = new Map<number, Job>();
  private closing = false;
  private avgMs = 1000;
  private readonly maxQueue: number;
  private readonly maxBatch: number;
  private readonly versions: AdapterVersions;
  info!: ModelInfo;

  private constructor(private readonly opts: WorkerEngineOptions) {
    this.maxQueue = opts.maxQueue ?? 16;
    this.maxBatch = Math.max(1, opts.maxBatch ?? 8);
    this.versions = new AdapterVersions(
      (adapter) => this.postOrLog({ type: 'setAdapter', adapter }),
      (version) => this.postOrLog({ type: 'dropAdapter', version }),
    );
  }

  /** Starts the worker and waits until the model is loaded (rejects with the load error). */
  static async start(opts: WorkerEngineOptions): Promise<WorkerInferenceEngine> {
    const engine = new WorkerInferenceEngine(opts);
    await engine.spawn();
    return engine;
  }

  get load(): { running: number; queued: number } {
    return { running: this.running.size, queued: this.queue.length };
  }

  get adapterVersion(): number {
    return this.versions.liveVersion;
  }

  setAdapter(adapter: AdapterPayload): Promise<void> {
    return this.versions.setLive(adapter);
  }

  reserveAdapter(adapter: AdapterPayload): Promise<number> {
    return this.versions.reserve(adapter);
  }

  releaseAdapter(version: number): void {
    this.versions.release(version);
  }

  private async spawn(): Promise<void> {
    const data: InferenceWorkerData = {
      modelDir: this.opts.modelDir,
      backend: this.opts.backend,
      prefixCacheBytes: this.opts.prefixCacheBytes,
    };
    prepareGpuEnvironment();
    const rpc = new WorkerRpc<ToInferenceWorker, FromInferenceWorker>({
      url: new URL('./worker.js', import.meta.url),
      workerData: data,
      name: 'the inference worker',
      onMessage: (m) => this.onMessage(m),
      onLost: (reason) => this.onCrash(reason),
      lostError: (reason) => new InferenceError(reason, 500, 'worker_crashed'),
    });
    this.rpc = rpc;
    const ready = await rpc.ready.catch((err: WorkerStartError) => {
      if (err.kind === 'fatal') throw new InferenceError(`loading the model failed: ${err.detail}`, 500, 'model_load_failed');
      if (err.kind === 'error') throw new InferenceError(`the inference worker failed to start: ${err.detail}`, 500, 'worker_failed');
      throw new InferenceError(`the inference worker exited with code ${err.detail} while loading the model`, 500, 'worker_failed');
    });
    this.info = ready.info;
    // A restarted worker needs every version requests may still name.
    for (const adapter of this.versions.payloads()) this.postOrLog({ type: 'setAdapter', adapter });
    this.pump();
  }

  prepare(request: ChatGenerationRequest): Promise<PreparedPrompt> {
    if (this.closing) return Promise.reject(new InferenceError('the server is shutting down', 503, 'shutting_down'));
    return this.rpc.call<PreparedPrompt>((id) => ({ type: 'prepare', id, request }), unsendable);
  }

  generate(request: ChatGenerationRequest, handlers: GenerateHandlers, reserved?: number): Promise<ChatGenerationResult> {
    // Refusals are thrown synchronously, so a streaming route can still answer with a real status.
    if (this.closing) throw new InferenceError('the server is shutting down', 503, 'shutting_down');
    if (handlers.signal.aborted) throw new InferenceError('the request was aborted', 499, 'aborted');
    if (this.queue.length >= this.maxQueue && this.running.size >= this.maxBatch) {
      const waves = Math.ceil((this.queue.length + 1) / this.maxBatch);
      throw new QueueFullError(Math.min(60_000, Math.max(100, this.avgMs * waves)), this.queue.length);
    }
    return new Promise((resolve, reject) => {
      const version = reserved ?? this.versions.acquire();
      const job: Job = { id: this.rpc.nextId(), version, request, handlers, resolve, reject, enqueuedAt: performance.now() };
      job.onAbort = () => {
        const i = this.queue.indexOf(job);
        if (i >= 0) {
          this.queue.splice(i, 1);
          this.end(job, new InferenceError('the request was aborted while queued', 499, 'aborted'));
        } else if (this.running.get(job.id) === job) this.postOrLog({ type: 'abort', id: job.id });
      };
      handlers.signal.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  private postOrLog(m: ToInferenceWorker): void {
    const err = this.rpc.post(m);
    if (err) this.opts.log?.(`clawloop: could not send '${m.type}' to the inference worker: ${err.message}`);
  }

  /** Hands queued jobs to the worker while slots are free; a job the worker cannot take fails alone. */
  private pump(): void {
    // A restarting worker takes jobs once it has loaded the model.
    if (!this.rpc.isReady) return;
    while (this.running.size < this.maxBatch && this.queue.length) {
      const job = this.queue.shift()!;
      const err = this.rpc.post({ type: 'generate', id: job.id, request: job.request, adapterVersion: job.version });
      if (err) {
        this.end(job, unsendable(err));
        continue;
      }
      this.running.set(job.id, job);
    }
  }

  /** Every way a job ends: its abort listener, its adapter reference and its slot are freed, exactly once. */
  private end(job: Job, outcome: ChatGenerationResult | Error): void {
    if (job.onAbort) job.handlers.signal.removeEventListener('abort', job.onAbort);
    job.onAbort = undefined;
    this.versions.release(job.version);
    this.running.delete(job.id);
    if (outcome instanceof Error) job.reject(outcome);
    else job.resolve(outcome);
  }

  private onMessage(m: FromInferenceWorker): void {
    if (m.type === 'adapterLoaded') return this.versions.onLoaded(m.version);
    if (m.type === 'adapterFailed') return this.versions.onFailed(m.version, m.message);
    if (m.type === 'prepared') return void this.rpc.resolve(m.id, m.prompt);
    // A failed prepare settles its call; a failed generation is a job's.
    if (m.type === 'failed' && this.rpc.reject(m.id, new InferenceError(m.message, m.status, m.code, m.promptTokens))) return;
    const job = 'id' in m ? this.running.get(m.id) : undefined;
    if (!job) return;
    if (m.type === 'started') {
      job.handlers.onStart?.({ promptTokens: m.promptTokens, maxTokens: m.maxTokens, queuedMs: performance.now() - job.enqueuedAt });
    } else if (m.type === 'delta') job.handlers.onDelta?.(m.delta);
    else if (m.type === 'done') {
      this.avgMs = 0.8 * this.avgMs + 0.2 * (performance.now() - job.enqueuedAt);
      this.end(job, m.result);
      this.pump();
    } else if (m.type === 'failed') {
      this.end(job, new InferenceError(m.message, m.status, m.code, m.promptTokens));
      this.pump();
    }
  }

  private failAll(jobs: Job[], error: () => InferenceError): void {
    for (const j of jobs) this.end(j, error());
  }

  /** The worker threw or exited: its jobs fail (its pending prepares already did), and a new one starts unless closing. */
  private onCrash(reason: string): void {
    this.opts.log?.(`clawloop: ${reason}${this.closing ? '' : '; restarting it'}`);
    this.failAll([...this.running.values(), ...this.queue.splice(0)], () => new InferenceError(reason, 500, 'worker_crashed'));
    if (this.closing) return;
    this.spawn().catch((err) => this.opts.log?.(`clawloop: restarting the inference worker failed: ${(err as Error).message}`));
  }

  abortAll(): void {
    this.failAll(this.queue.splice(0), () => new InferenceError('aborted by the server', 503, 'shutting_down'));
    for (const id of this.running.keys()) this.postOrLog({ type: 'abort', id });
  }

  /**
   * Stops accepting work and waits for the running requests (aborting them with `abort`). Never
   * waits forever: requests still running `closeDeadlineMs` after an abort fail, and the worker is stopped.
   */
  async close(opts: { abort?: boolean } = {}): Promise<void> {
    this.closing = true;
    this.failAll(this.queue.splice(0), () => new InferenceError('the server is shutting down', 503, 'shutting_down'));
    if (opts.abort) this.abortAll();
    const deadline = opts.abort ? Date.now() + (this.opts.closeDeadlineMs ?? 10_000) : Infinity;
    while (this.running.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    if (this.running.size) {
      this.opts.log?.(`clawloop: ${this.running.size} generation(s) did not stop in time; stopping the inference worker`);
      this.failAll([...this.running.values()], () => new InferenceError('the server is shutting down', 503, 'shutting_down'));
      await this.rpc.terminate();
      return;
    }
    await this.rpc.stop({ type: 'shutdown' });
  }
}

function unsendable(err: Error): InferenceError {
  return new InferenceError(`the request could not be handed to the model: ${err.message}`, 400, 'invalid_request');
}
