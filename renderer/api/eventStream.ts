/**
 * The app's one live connection to the core: GET /api/events read with fetch (not EventSource,
 * which cannot send the API key). It keeps the id of the last event it saw and, whenever the stream
 * ends (the core restarted, the network dropped, no heartbeat for too long), reconnects with
 * `Last-Event-ID` so the core replays what was missed. After a reconnect it asks the app to resync
 * (refetch snapshots), and if the core's ids went backwards (its event log was reset) it says so.
 */
import { EVENT_SCHEMAS, GAP_EVENT, isEventName, type ClawLoopEvent } from './events.js';
import { SseParser } from './sseParser.js';
import { errorFromResponse } from './transport.js';

export type StreamState = 'connecting' | 'open' | 'down';
export type ResyncReason = 'reconnected' | 'reset' | 'gap';

export interface StreamStatus {
  state: StreamState;
  /** Failed attempts since the stream was last open. */
  failures: number;
  /** Why the last attempt failed. */
  error: string | null;
  /** When the next attempt starts (ms since epoch), while down. */
  retryAt: number | null;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export interface EventStreamOptions {
  /** Opens GET /api/events (with auth) sending `Last-Event-ID` when given. */
  open: (lastEventId: string | null, signal: AbortSignal) => Promise<Response>;
  onEvent: (ev: ClawLoopEvent) => void;
  onStatus?: (s: StreamStatus) => void;
  /**
   * Refetch snapshots: after a reconnect ('reconnected'), when the core's event ids started again
   * ('reset'), or when it no longer keeps the events missed ('gap').
   */
  onResync?: (reason: ResyncReason) => void;
  /** First retry delay in ms (default 500), doubled per failure up to maxRetryMs (default 5000). */
  retryMs?: number;
  maxRetryMs?: number;
  /** Reconnect when nothing (not even a heartbeat) arrived for this long; default 45000 ms (3 heartbeats). */
  idleTimeoutMs?: number;
  timers?: Timers;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

export class EventStreamClient {
  private lastId: number | null = null;
  private running = false;
  private wasOpen = false;
  private controller: AbortController | null = null;
  private retryTimer: unknown = null;
  private idleTimer: unknown = null;
  private serverRetryMs: number | null = null;
  private status: StreamStatus = { state: 'connecting', failures: 0, error: null, retryAt: null };
  private readonly timers: Timers;

  constructor(private readonly o: EventStreamOptions) {
    this.timers = o.timers ?? realTimers;
  }

  /** The id of the last event received (sent as Last-Event-ID on reconnect). */
  get lastEventId(): number | null {
    return this.lastId;
  }

  get currentStatus(): StreamStatus {
    return this.status;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  stop(): void {
    this.running = false;
    this.clearTimers();
    this.controller?.abort();
    this.controller = null;
  }

  /** Reconnects now instead of waiting for the next retry (the banner's Retry). */
  retryNow(): void {
    if (!this.running) return this.start();
    if (this.status.state === 'open') return;
    this.clearTimers();
    this.controller?.abort();
    void this.connect();
  }

  private setStatus(s: Partial<StreamStatus>): void {
    this.status = { ...this.status, ...s };
    this.o.onStatus?.(this.status);
  }

  private clearTimers(): void {
    if (this.retryTimer !== null) this.timers.clearTimeout(this.retryTimer);
    if (this.idleTimer !== null) this.timers.clearTimeout(this.idleTimer);
    this.retryTimer = this.idleTimer = null;
  }

  private async connect(): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    this.idleAborted = false;
    this.setStatus({ state: this.status.failures ? 'down' : 'connecting', retryAt: null });
    let error: string;
    try {
      const res = await this.o.open(this.lastId === null ? null : String(this.lastId), controller.signal);
      if (!res.ok) throw await errorFromResponse(res);
      await this.read(res, controller);
      error = 'the event stream ended';
    } catch (err) {
      error = this.idleAborted ? 'no event or heartbeat from the core for too long' : (err as Error).message;
    }
    // Stopped, or replaced by retryNow(): that one owns the stream now.
    if (this.controller !== controller || !this.running) return;
    this.scheduleRetry(error);
  }

  /** Set when the idle timer (not stop() or retryNow()) aborted the connection. */
  private idleAborted = false;

  private armIdle(controller: AbortController): void {
    if (this.idleTimer !== null) this.timers.clearTimeout(this.idleTimer);
    this.idleTimer = this.timers.setTimeout(() => {
      this.idleAborted = true;
      controller.abort();
    }, this.o.idleTimeoutMs ?? 45_000);
  }

  private async read(res: Response, controller: AbortController): Promise<void> {
    if (!res.body) throw new Error('the core answered /api/events without a body');
    this.setStatus({ state: 'open', failures: 0, error: null, retryAt: null });
    if (this.wasOpen) this.o.onResync?.('reconnected');
    this.wasOpen = true;
    this.armIdle(controller);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SseParser();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        this.armIdle(controller);
        for (const msg of parser.push(value)) {
          if (msg.retry !== null) this.serverRetryMs = msg.retry;
          this.handle(msg.event, msg.data, msg.id);
        }
      }
    } finally {
      if (this.idleTimer !== null) this.timers.clearTimeout(this.idleTimer);
      this.idleTimer = null;
      reader.releaseLock();
    }
  }

  private handle(name: string, data: string, rawId: string | null): void {
    const id = rawId !== null && /^\d+$/.test(rawId) ? Number(rawId) : null;
    if (id !== null) {
      if (this.lastId !== null && id <= this.lastId) {
        // Ids only grow on one core; smaller ones mean its event log started again.
        this.lastId = id;
        this.o.onResync?.('reset');
      } else this.lastId = id;
    }
    if (name === GAP_EVENT) return this.o.onResync?.('gap');
    if (!data || !isEventName(name)) return;
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      return; // a malformed event must not stop the stream
    }
    const parsed = EVENT_SCHEMAS[name].safeParse(raw);
    if (!parsed.success) return; // an event of another version's shape: the next resync covers it
    const at = typeof (raw as { at?: unknown }).at === 'number' ? (raw as { at: number }).at : this.timers.now();
    this.o.onEvent({ id: id ?? 0, event: name, at, data: parsed.data } as ClawLoopEvent);
  }

  private scheduleRetry(error: string | null): void {
    const failures = this.status.failures + 1;
    const base = this.serverRetryMs ?? this.o.retryMs ?? 500;
    const delay = Math.min(base * 2 ** (failures - 1), Math.max(base, this.o.maxRetryMs ?? 5000));
    // The first failure after being open is a reconnect attempt, not "down" yet.
    const state: StreamState = failures > 1 || !this.wasOpen ? 'down' : 'connecting';
    this.setStatus({ state, failures, error, retryAt: this.timers.now() + delay });
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = null;
      if (this.running) void this.connect();
    }, delay);
  }
}
