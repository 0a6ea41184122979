import { ApiError } from './apiError.js';

/** GGUF exports that may load a model at once: each worker holds the base model and a merged copy. */
export const EXPORT_WORKERS = 1;
/** GGUF exports that may wait for a worker; past that a request gets 429. */
export const MAX_WAITING_EXPORTS = 8;

/**
 * Keeps checkpoint exports from stepping on each other: one export at a time per target folder
 * (a second one to the same folder is a 409 naming the one running), and at most
 * {@link EXPORT_WORKERS} model-loading (GGUF) exports at once, the rest waiting in order of arrival.
 * Without it, two exports to one folder both answered 200 with the same path, and six at once
 * started six workers that each loaded the model.
 */
export class ExportQueue {
  /** Target folder → what is being exported there (a checkpoint id). */
  private readonly targets = new Map<string, string>();
  private readonly waiting: Array<() => void> = [];
  private running = 0;

  constructor(
    private readonly workers = EXPORT_WORKERS,
    private readonly maxWaiting = MAX_WAITING_EXPORTS,
  ) {}

  /** Whether an export into `target` is under way (default names skip such folders). */
  has(target: string): boolean {
    return this.targets.has(target);
  }

  /**
   * Holds `target` for an export of `what` until the returned function is called; a 409 that names
   * the running export when another holds it.
   */
  claim(target: string, what: string): () => void {
    const running = this.targets.get(target);
    if (running !== undefined) {
      throw new ApiError(
        409,
        `an export of ${running} into ${target} is running; wait for it to finish or choose another folder`,
        'invalid_request_error',
        'export_running',
        'dir',
      );
    }
    this.targets.set(target, what);
    return () => this.targets.delete(target);
  }

  /**
   * Runs `work` once a worker is free (in order of arrival); a 429 when too many already wait.
   * @param signal aborted when the caller no longer wants the export (its client left): it leaves
   *   the queue without running.
   */
  async withWorker<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.running >= this.workers) {
      if (this.waiting.length >= this.maxWaiting) {
        throw new ApiError(
          429,
          `${this.waiting.length} GGUF exports are waiting for the one running; try again when one has finished`,
          'rate_limit_error',
          'too_many_exports',
        );
      }
      await this.turn(signal);
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Waits for a worker to be handed over; rejects, leaving the queue, when `signal` aborts first. */
  private turn(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        this.waiting.splice(this.waiting.indexOf(go), 1);
        reject(new ApiError(499, 'the client left before its export started', 'invalid_request_error', 'client_closed'));
      };
      if (signal?.aborted) return leave();
      this.waiting.push(go);
      signal?.addEventListener('abort', leave, { once: true });
    });
  }

  /** Exports running and waiting for a worker (for tests and /healthz-like reports). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
