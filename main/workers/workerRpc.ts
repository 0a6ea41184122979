/**
 * A worker thread and the conversation every ClawLoop worker client has with its own (inference,
 * trainer, GGUF export), written once:
 *
 * - the handshake: the worker answers `{ type: 'fatal', message }` when it could not start (it is
 *   then terminated: it may hold a GPU device that keeps it alive), or its `ready` message (a
 *   one-shot worker: its result) when it did; `ready` settles with it;
 * - requests: a message with an `id` from `nextId()`; `call()` keeps it pending until the client
 *   `resolve()`s or `reject()`s that id from the worker's answer;
 * - loss: when the worker throws or exits, every pending request is rejected, and `onLost` hears
 *   about it unless the client was stopping the worker (`stop()`, `terminate()`).
 */
import { Worker } from 'node:worker_threads';

/** Why a worker never completed its handshake: it reported `fatal`, threw, or exited. */
export class WorkerStartError extends Error {
  override name = 'WorkerStartError';
  constructor(
    readonly kind: 'fatal' | 'error' | 'exit',
    /** The worker's `fatal` message, the error's message, or the exit code. */
    readonly detail: string,
    workerName: string,
  ) {
    super(kind === 'exit' ? `${workerName} exited with code ${detail} while starting` : `${workerName} failed to start: ${detail}`);
  }
}

export interface WorkerRpcOptions<From> {
  /** The worker's compiled module, e.g. `new URL('./worker.js', import.meta.url)`. */
  url: URL;
  /** Cloned into the worker as its `workerData`. */
  workerData: unknown;
  /** Names the worker in error messages, e.g. "the inference worker". */
  name: string;
  /** The type of the message that completes the handshake. Default 'ready'. */
  readyType?: string;
  /** Receives every other message (also those before the handshake), in order, until the worker is lost. */
  onMessage?: (m: From) => void;
  /**
   * The worker threw (`reason` "… crashed: …") or exited ("… exited unexpectedly …") after its
   * handshake while nobody was stopping it. Its pending requests are rejected already.
   */
  onLost?: (reason: string) => void;
  /** The error pending requests fail with when the worker goes away. Default: `new Error(reason)`. */
  lostError?: (reason: string) => Error;
}

type State = 'starting' | 'ready' | 'stopping' | 'gone';

/**
 * One running worker. `To` is what the client sends, `From` what the worker answers, `First` the
 * handshake message that means it started (its `ready` message unless `readyType` says otherwise).
 */
export class WorkerRpc<To, From extends { type: string }, First extends From = Extract<From, { type: 'ready' }>> {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private lastId = 0;
  private state: State = 'starting';
  /** The handshake arrived (either way). */
  private answered = false;
  private readonly exited: Promise<void>;
  /** Settles with the handshake: the worker's ready message, or a WorkerStartError. */
  readonly ready: Promise<First>;

  constructor(private readonly opts: WorkerRpcOptions<From>) {
    const worker = new Worker(opts.url, { workerData: opts.workerData });
    this.worker = worker;
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    this.ready = new Promise<First>((resolve, reject) => {
      const failStart = (kind: WorkerStartError['kind'], detail: string) => reject(new WorkerStartError(kind, detail, opts.name));
      worker.on('message', (m: From) => {
        if (this.state === 'gone') return;
        if (this.state === 'starting' && m.type === 'fatal') {
          this.answered = true;
          this.state = 'gone';
          void worker.terminate();
          failStart('fatal', (m as { message?: string }).message ?? 'no reason given');
        } else if (this.state === 'starting' && m.type === (opts.readyType ?? 'ready')) {
          this.answered = true;
          this.state = 'ready';
          resolve(m as First);
        } else opts.onMessage?.(m);
      });
      worker.on('error', (err) => this.lose(`${opts.name} crashed: ${err.message}`, () => failStart('error', err.message)));
      worker.on('exit', (code) => this.lose(`${opts.name} exited unexpectedly (code ${code})`, () => failStart('exit', String(code))));
    });
  }

  /** True from the handshake until the worker is stopped or lost. */
  get isReady(): boolean {
    return this.state === 'ready';
  }

  /** An id for a request, unique for this worker. */
  nextId(): number {
    return ++this.lastId;
  }

  /** Posts a message; a value that cannot be cloned, or a worker that is gone, comes back as the error instead of throwing. */
  post(m: To): Error | null {
    if (this.state === 'gone') return new Error(`${this.opts.name} is not running`);
    try {
      this.worker.postMessage(m);
      return null;
    } catch (err) {
      return err as Error;
    }
  }

  /**
   * Posts the message `build` makes with a new id and waits until the client settles that id
   * (`resolve`, `reject`) or the worker goes away. A message that cannot be posted rejects with
   * `postFailed(error)` (default: the error itself).
   */
  call<T>(build: (id: number) => To, postFailed: (err: Error) => Error = (err) => err): Promise<T> {
    if (this.state === 'gone' || this.state === 'stopping') return Promise.reject(this.lostError(`${this.opts.name} is not running`));
    const id = this.nextId();
    return new Promise<T>((resolve, reject) => {
      const err = this.post(build(id));
      if (err) return reject(postFailed(err));
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    });
  }

  /** Answers a pending request; false when none has this id (it was answered, or was never a `call`). */
  resolve(id: number, value: unknown): boolean {
    const p = this.pending.get(id);
    this.pending.delete(id);
    p?.resolve(value);
    return p !== undefined;
  }

  /** Fails a pending request; false when none has this id. */
  reject(id: number, error: Error): boolean {
    const p = this.pending.get(id);
    this.pending.delete(id);
    p?.reject(error);
    return p !== undefined;
  }

  /** Asks the worker to finish by posting `message`, and resolves once it exited (terminating it if the message cannot be posted). */
  async stop(message: To): Promise<void> {
    if (this.state !== 'gone') {
      this.state = 'stopping';
      if (this.post(message)) await this.worker.terminate();
    }
    await this.exited;
  }

  /** Stops the worker at once; its pending requests are rejected. */
  async terminate(): Promise<void> {
    if (this.state !== 'gone') this.state = 'stopping';
    await this.worker.terminate();
    await this.exited;
  }

  private lostError(reason: string): Error {
    return this.opts.lostError?.(reason) ?? new Error(reason);
  }

  /** The worker threw or exited: its requests fail, and whoever waits on it hears why (once). */
  private lose(reason: string, failStart: () => void): void {
    const was = this.state;
    if (was === 'gone') return;
    this.state = 'gone';
    for (const p of this.pending.values()) p.reject(this.lostError(reason));
    this.pending.clear();
    if (!this.answered) failStart();
    else if (was === 'ready') this.opts.onLost?.(reason);
  }
}
