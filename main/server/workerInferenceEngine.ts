import { Worker } from 'node:worker_threads';
import type { BackendName } from '../engine/index.js';
import type { ChatGenerationRequest, ChatGenerationResult } from '../engine/index.js';
import type {
  AdapterPayload,
  FromInferenceWorker,
  InferenceWorkerData,
  ModelInfo,
  ToInferenceWorker,
} from '../workers/inferenceMessages.js';
import { InferenceError, QueueFullError, type GenerateHandlers, type InferenceEngine } from './inferenceEngine.js';

export interface WorkerEngineOptions {
  modelDir: string;
  backend?: BackendName;
  /** Requests allowed to wait while `maxBatch` run; more get 429. Default 16. */
  maxQueue?: number;
  /** Requests generating at once, decoded as one batch. Default 8; 1 runs them one at a time. */
  maxBatch?: number;
  /** Receives one-line status messages. */
  log?: (line: string) => void;
}

interface Job {
  id: string;
  /** The adapter version the request was admitted with. */
  version: number;
  request: ChatGenerationRequest;
  handlers: GenerateHandlers;
  resolve: (r: ChatGenerationResult) => void;
  reject: (e: Error) => void;
  enqueuedAt: number;
  onAbort?: () => void;
}

let nextId = 0;

/**
 * Runs the model in a worker thread and feeds it up to `maxBatch` requests at a time, first come
 * first served; the worker decodes them together. A crashed worker fails the requests it held and
 * is restarted for the next ones.
 */
export class WorkerInferenceEngine implements InferenceEngine {
  private worker!: Worker;
  private readonly queue: Job[] = [];
  private readonly running = new Map<string, Job>();
  private closing = false;
  private avgMs = 1000;
  private readonly maxQueue: number;
  info!: ModelInfo;
  private live: AdapterPayload = { version: 0, lora: null, tensors: null };
  /** Versions the worker holds, with the number of admitted requests that use each. */
  private readonly held = new Map<number, { payload: AdapterPayload; refs: number }>([
    [0, { payload: { version: 0, lora: null, tensors: null }, refs: 0 }],
  ]);

  private constructor(private readonly opts: WorkerEngineOptions) {
    this.maxQueue = opts.maxQueue ?? 16;
    this.maxBatch = Math.max(1, opts.maxBatch ?? 8);
  }

  private readonly maxBatch: number;

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
    return this.live.version;
  }

  setAdapter(adapter: AdapterPayload): void {
    const previous = this.live.version;
    this.live = adapter;
    if (!this.held.has(adapter.version)) this.held.set(adapter.version, { payload: adapter, refs: 0 });
    this.post({ type: 'setAdapter', adapter });
    this.release(previous, 0);
  }

  /** Drops `refsDelta` references to a version; frees it in the worker once unused and not live. */
  private release(version: number, refsDelta: number): void {
    const h = this.held.get(version);
    if (!h) return;
    h.refs += refsDelta;
    if (h.refs <= 0 && version !== this.live.version && version !== 0) {
      this.held.delete(version);
      this.post({ type: 'dropAdapter', version });
    }
  }

  private spawn(): Promise<void> {
    const data: InferenceWorkerData = { modelDir: this.opts.modelDir, backend: this.opts.backend };
    const worker = new Worker(new URL('../workers/inferenceWorker.js', import.meta.url), { workerData: data });
    this.worker = worker;
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on('message', (m: FromInferenceWorker) => {
        if (m.type === 'ready') {
          ready = true;
          this.info = m.info;
          // A restarted worker needs every version requests may still name.
          for (const [v, h] of this.held) if (v !== 0) this.post({ type: 'setAdapter', adapter: h.payload });
          resolve();
          this.pump();
        } else if (m.type === 'fatal') {
          reject(new InferenceError(`loading the model failed: ${m.message}`, 500, 'model_load_failed'));
        } else {
          this.onMessage(m);
        }
      });
      worker.on('error', (err) => {
        if (!ready) reject(new InferenceError(`the inference worker failed to start: ${err.message}`, 500, 'worker_failed'));
        else this.onCrash(`the inference worker crashed: ${err.message}`);
      });
      worker.on('exit', (code) => {
        if (!ready)
          reject(new InferenceError(`the inference worker exited with code ${code} while loading the model`, 500, 'worker_failed'));
        else if (!this.closing) this.onCrash(`the inference worker exited unexpectedly (code ${code})`);
      });
    });
  }

  generate(request: ChatGenerationRequest, handlers: GenerateHandlers): Promise<ChatGenerationResult> {
    // Refusals are thrown synchronously, so a streaming route can still answer with a real status.
    if (this.closing) throw new InferenceError('the server is shutting down', 503, 'shutting_down');
    if (handlers.signal.aborted) throw new InferenceError('the request was aborted', 499, 'aborted');
    if (this.queue.length >= this.maxQueue && this.running.size >= this.maxBatch) {
      const waves = Math.ceil((this.queue.length + 1) / this.maxBatch);
      throw new QueueFullError(Math.min(60_000, Math.max(100, this.avgMs * waves)), this.queue.length);
    }
    return new Promise((resolve, reject) => {
      const version = this.live.version;
      this.held.get(version)!.refs++;
      const job: Job = { id: `g${++nextId}`, version, request, handlers, resolve, reject, enqueuedAt: performance.now() };
      job.onAbort = () => {
        const i = this.queue.indexOf(job);
        if (i >= 0) {
          this.queue.splice(i, 1);
          this.release(job.version, -1);
          reject(new InferenceError('the request was aborted while queued', 499, 'aborted'));
        } else if (this.running.get(job.id) === job) {
          this.post({ type: 'abort', id: job.id });
        }
      };
      handlers.signal.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  private post(m: ToInferenceWorker): void {
    this.worker.postMessage(m);
  }

  private pump(): void {
    if (!this.info) return;
    while (this.running.size < this.maxBatch && this.queue.length) {
      const job = this.queue.shift()!;
      this.running.set(job.id, job);
      this.post({ type: 'generate', id: job.id, request: job.request, adapterVersion: job.version });
    }
  }

  private finish(job: Job): void {
    if (job.onAbort) job.handlers.signal.removeEventListener('abort', job.onAbort);
    this.release(job.version, -1);
    this.running.delete(job.id);
    this.pump();
  }

  private onMessage(m: FromInferenceWorker): void {
    const job = 'id' in m ? this.running.get(m.id) : undefined;
    if (!job) return;
    switch (m.type) {
      case 'started':
        job.handlers.onStart?.({ promptTokens: m.promptTokens, maxTokens: m.maxTokens, queuedMs: performance.now() - job.enqueuedAt });
        break;
      case 'delta':
        job.handlers.onDelta?.(m.delta);
        break;
      case 'done':
        this.avgMs = 0.8 * this.avgMs + 0.2 * (performance.now() - job.enqueuedAt);
        this.finish(job);
        job.resolve(m.result);
        break;
      case 'failed':
        this.finish(job);
        job.reject(new InferenceError(m.message, m.status, m.code));
        break;
    }
  }

  private onCrash(reason: string): void {
    this.opts.log?.(`clawloop: ${reason}; restarting it`);
    const failed = [...this.running.values(), ...this.queue.splice(0)];
    this.running.clear();
    for (const j of failed) {
      if (j.onAbort) j.handlers.signal.removeEventListener('abort', j.onAbort);
      this.release(j.version, -1);
      j.reject(new InferenceError(reason, 500, 'worker_crashed'));
    }
    this.worker.removeAllListeners();
    this.spawn().catch((err) => this.opts.log?.(`clawloop: restarting the inference worker failed: ${(err as Error).message}`));
  }

  abortAll(): void {
    for (const j of this.queue.splice(0)) {
      if (j.onAbort) j.handlers.signal.removeEventListener('abort', j.onAbort);
      this.release(j.version, -1);
      j.reject(new InferenceError('aborted by the server', 503, 'shutting_down'));
    }
    for (const id of this.running.keys()) this.post({ type: 'abort', id });
  }

  async close(opts: { abort?: boolean } = {}): Promise<void> {
    this.closing = true;
    for (const j of this.queue.splice(0)) {
      this.release(j.version, -1);
      j.reject(new InferenceError('the server is shutting down', 503, 'shutting_down'));
    }
    if (opts.abort) this.abortAll();
    while (this.running.size) await new Promise((r) => setTimeout(r, 10));
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.post({ type: 'shutdown' });
    await exited;
  }
}
