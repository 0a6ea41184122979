import type { AdapterPayload } from './messages.js';

interface Loading {
  payload: AdapterPayload;
  /** Make it live once loaded (a new adapter from the trainer), or only hold it (an answer from an older checkpoint). */
  makeLive: boolean;
  waiters: Array<{ resolve: () => void; reject: (e: Error) => void }>;
}

/**
 * The adapter versions the inference worker holds, with how many admitted requests use each.
 * A version goes live only once the worker confirmed it loaded; until then (and if loading fails)
 * the last good version keeps serving. A version no request uses and that is not live is dropped.
 */
export class AdapterVersions {
  private live: AdapterPayload = { version: 0, lora: null, tensors: null };
  private readonly held = new Map<number, { payload: AdapterPayload; refs: number }>([
    [0, { payload: { version: 0, lora: null, tensors: null }, refs: 0 }],
  ]);
  private readonly loading = new Map<number, Loading>();

  constructor(
    /** Asks the worker to load a version. */
    private readonly load: (a: AdapterPayload) => void,
    /** Tells the worker no request uses a version any more. */
    private readonly drop: (version: number) => void,
  ) {}

  get liveVersion(): number {
    return this.live.version;
  }

  /** Loads `a` in the worker; resolves once it serves (rejects with the worker's reason, the old version still live). */
  async setLive(a: AdapterPayload): Promise<void> {
    if (this.held.has(a.version)) this.makeLive(a.version);
    else await this.loaded(a, true);
  }

  /**
   * Holds a version that need not be live (e.g. to answer with an older checkpoint), loading it
   * first when the worker does not have it. The caller releases it. Resolves with the version.
   */
  async reserve(a: AdapterPayload): Promise<number> {
    if (!this.held.has(a.version)) await this.loaded(a, false);
    this.held.get(a.version)!.refs++;
    return a.version;
  }

  /** Resolves once the worker has `a` (one load per version, however many ask). */
  private loaded(a: AdapterPayload, makeLive: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const pending = this.loading.get(a.version);
      if (pending) {
        pending.makeLive ||= makeLive;
        pending.waiters.push({ resolve, reject });
        return;
      }
      this.loading.set(a.version, { payload: a, makeLive, waiters: [{ resolve, reject }] });
      this.load(a);
    });
  }

  /** The worker loaded a version. */
  onLoaded(version: number): void {
    const p = this.loading.get(version);
    if (!p) return;
    this.loading.delete(version);
    this.held.set(version, { payload: p.payload, refs: 0 });
    if (p.makeLive) this.makeLive(version);
    p.waiters.forEach((w) => w.resolve());
  }

  /** The worker could not load a version. */
  onFailed(version: number, message: string): void {
    const p = this.loading.get(version);
    if (!p) return;
    this.loading.delete(version);
    const err = new Error(`adapter version ${version} could not be loaded for serving: ${message}`);
    p.waiters.forEach((w) => w.reject(err));
  }

  private makeLive(version: number): void {
    const previous = this.live.version;
    this.live = this.held.get(version)!.payload;
    this.release(previous, 0);
  }

  /** A request admitted now uses the live version. */
  acquire(): number {
    this.held.get(this.live.version)!.refs++;
    return this.live.version;
  }

  /** Drops `refsDelta` references; frees the version in the worker once unused and not live. */
  release(version: number, refsDelta = -1): void {
    const h = this.held.get(version);
    if (!h) return;
    h.refs += refsDelta;
    if (h.refs <= 0 && version !== this.live.version && version !== 0) {
      this.held.delete(version);
      this.drop(version);
    }
  }

  /** Every version a restarted worker must load again. */
  payloads(): AdapterPayload[] {
    return [...this.held.values()].map((h) => h.payload).filter((p) => p.version !== 0);
  }
}
