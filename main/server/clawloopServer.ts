import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultModelDir } from '../resources.js';
import { AppQueries } from '../store/appQueries.js';
import { EventStore } from '../store/eventStore.js';
import type { LearnStore } from '../store/learnStore.js';
import { ApiError } from './apiError.js';
import { EventBus } from './eventBus.js';
import { EventStreamSlots } from './eventStreamSlots.js';
import { SignInLinks } from './signIn.js';
import { BrowserSessions } from './browserSessions.js';
import { ExportQueue } from './exportQueue.js';
import { cleanupExportTemp } from './exportTemp.js';
import type { InferenceEngine } from './inferenceEngine.js';
import { Router } from './router.js';
import { HANDLERS } from './routeTable.js';
import type { ServerContext } from './serverContext.js';
import { bodyLimitFor, DEFAULT_SERVER_OPTIONS, type ServerOptions } from './serverOptions.js';
import { SettingsFile } from './settingsFile.js';
import type { TrainerClient } from '../workers/trainer/client.js';

export interface ClawLoopServerDeps {
  engine: InferenceEngine;
  store: LearnStore;
  /** The learning loop; null serves and records without training (the /api training routes answer 503). */
  trainer?: TrainerClient | null;
  /** The data folder (checkpoint files live there). */
  dataDir: string;
  options?: Partial<ServerOptions>;
  log?: (line: string) => void;
}

/** After the grace period and an abort, requests still running get this long before connections are cut. */
const ABORT_DEADLINE_MS = 5_000;

/**
 * The OpenAI-compatible HTTP server. It only parses, validates, records and streams: model work
 * runs in the inference engine's worker, so this thread stays free to answer (e.g. /healthz) while
 * a long generation runs. Routes are dispatched from one table (main/server/routeTable.ts).
 */
export class ClawLoopServer {
  readonly options: ServerOptions;
  readonly events: EventBus;
  private readonly http: http.Server;
  private readonly inflight = new Set<Promise<void>>();
  private readonly sweeper: NodeJS.Timeout | null;
  private readonly shutdownHooks = new Set<() => void>();
  private readonly signInLinks = new SignInLinks();
  private closed = false;
  /** Set once shutdown began (see {@link beginShutdown}): why new requests are refused. */
  private stoppingMessage: string | null = null;
  private closing: Promise<void> | null = null;

  private constructor(private readonly deps: ClawLoopServerDeps) {
    this.options = { ...DEFAULT_SERVER_OPTIONS, ...deps.options };
    if (!this.options.servedModelName) this.options.servedModelName = deps.engine.info.name;
    this.options.maxBodyBytes ??= bodyLimitFor(deps.engine.info.contextLength);
    const log = deps.log ?? (() => {});
    this.events = new EventBus(new EventStore(deps.store.database), log);
    deps.trainer?.attachEvents(this.events);
    const router = new Router(this.context(log), HANDLERS);
    this.http = http.createServer((req, res) => {
      const p = router.handle(req, res);
      this.inflight.add(p);
      void p.finally(() => this.inflight.delete(p));
    });
    this.http.requestTimeout = this.options.requestTimeoutMs;
    this.http.headersTimeout = Math.min(this.options.requestTimeoutMs, 30_000);
    this.http.keepAliveTimeout = 65_000;
    this.http.on('clientError', (err: NodeJS.ErrnoException, socket) => clientError(err, socket));
    this.sweeper = this.startSweeper(log);
  }

  private context(log: (line: string) => void): ServerContext {
    const { engine, store, trainer = null, dataDir } = this.deps;
    return {
      engine,
      store,
      app: new AppQueries(store.database),
      trainer,
      events: this.events,
      options: this.options,
      dataDir,
      settings: new SettingsFile(dataDir),
      startedAt: Date.now(),
      baseUrl: () => this.url,
      defaultModelDir: defaultModelDir(),
      closing: () => this.closed || this.stoppingMessage !== null,
      shutdownMessage: () => this.stoppingMessage,
      wakeTrainer: () => trainer?.wake(),
      log,
      onShutdown: (f) => {
        this.shutdownHooks.add(f);
        return () => this.shutdownHooks.delete(f);
      },
      signInLinks: this.signInLinks,
      browserSessions: new BrowserSessions(dataDir),
      eventStreams: new EventStreamSlots(this.options.maxEventStreamsPerClient, this.options.maxEventStreams),
      exports: new ExportQueue(),
    };
  }

  /** Ends sessions idle for `sessionIdleMs` (their waiting turns close without a next state). */
  private startSweeper(log: (line: string) => void): NodeJS.Timeout | null {
    const idle = this.options.sessionIdleMs;
    if (idle <= 0) return null;
    const timer = setInterval(
      () => {
        try {
          const n = this.deps.store.turns.endIdleSessions(Date.now(), idle);
          if (n) {
            log(`clawloop: ended ${n} idle session(s)`);
            this.deps.trainer?.wake();
          }
        } catch (err) {
          log(`clawloop: ending idle sessions failed: ${(err as Error).message}`);
        }
      },
      Math.max(1000, Math.min(60_000, Math.floor(idle / 4))),
    );
    timer.unref();
    return timer;
  }

  /** Starts listening; resolves once the port is bound. */
  static async start(deps: ClawLoopServerDeps): Promise<ClawLoopServer> {
    const server = new ClawLoopServer(deps);
    const leftovers = cleanupExportTemp(deps.dataDir);
    if (leftovers) deps.log?.(`clawloop: removed ${leftovers} unfinished export(s)`);
    await new Promise<void>((resolve, reject) => {
      server.http.once('error', reject);
      server.http.listen(server.options.port, server.options.host, () => {
        server.http.off('error', reject);
        resolve();
      });
    });
    server.announceStartup();
    return server;
  }

  /** The first events of a run: which adapter serves, and the state of training. */
  private announceStartup(): void {
    const { engine, trainer, store } = this.deps;
    const live = trainer ? store.trainerState().liveCheckpointId : null;
    this.events.publish({ event: 'adapter.live', data: { version: engine.adapterVersion, checkpoint_id: live, reason: 'startup' } });
    if (trainer) trainer.publishState();
  }

  /**
   * The address to open the app at: with an API key, a new one-time sign-in link (it dies on use
   * and signs the browser in with a cookie, so the key is never in a URL); without, the app itself.
   */
  appLink(): string {
    return this.options.apiKey ? `${this.origin}/api/sign-in/${this.signInToken()}` : `${this.origin}/`;
  }

  /** A new one-time sign-in token (GET /api/sign-in/{token}). */
  signInToken(): string {
    return this.signInLinks.issue();
  }

  /** Shutdown hooks registered and not yet run or cancelled (one per open event stream): for leak checks. */
  get shutdownHookCount(): number {
    return this.shutdownHooks.size;
  }

  get port(): number {
    return (this.http.address() as AddressInfo).port;
  }

  /** http://127.0.0.1:30000: the app (web mode) and the API. */
  get origin(): string {
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${this.port}`;
  }

  /** Base URL of the OpenAI API, e.g. http://127.0.0.1:30000/v1. */
  get url(): string {
    return `${this.origin}/v1`;
  }

  /**
   * The first moment of a shutdown, before the trainer finishes its step: the port stays open for
   * reads and the event stream (the app shows why), new requests get 503 `shutting_down` with
   * `message`, and a `server.stopping` event tells every open app. Once only.
   */
  beginShutdown(step: number | null, message: string): void {
    if (this.stoppingMessage !== null || this.closed) return;
    this.stoppingMessage = message;
    this.events.publish({ event: 'server.stopping', data: { step, message } });
  }

  /**
   * Stops accepting requests, lets requests in flight finish (aborting them after `graceMs`, or at
   * once with `abort`), then closes the engine. Never waits forever: requests that do not end
   * within a deadline after the abort have their connections cut. The caller closes the database.
   */
  close(opts: { abort?: boolean; graceMs?: number } = {}): Promise<void> {
    if (this.closing) {
      if (opts.abort) this.deps.engine.abortAll();
      return this.closing;
    }
    this.closed = true;
    this.closing = this.shutdown(opts);
    return this.closing;
  }

  private async shutdown(opts: { abort?: boolean; graceMs?: number }): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    const hooks = [...this.shutdownHooks];
    this.shutdownHooks.clear();
    for (const f of hooks) f();
    const stopped = new Promise<void>((resolve) => this.http.close(() => resolve()));
    this.http.closeIdleConnections();
    const grace = opts.abort ? 0 : (opts.graceMs ?? 30_000);
    const timedOut = !(await settlesWithin([...this.inflight], grace));
    await this.deps.engine.close({ abort: timedOut || opts.abort });
    await settlesWithin([...this.inflight], ABORT_DEADLINE_MS);
    this.http.closeAllConnections();
    await stopped;
  }
}

/** True when every promise settled within `ms`. */
async function settlesWithin(ps: Array<Promise<unknown>>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  const done = Promise.allSettled(ps).then(() => true as const);
  const ok = await Promise.race([done, deadline]);
  clearTimeout(timer);
  return ok;
}

/** Errors of Node's HTTP parser (bad method, bad Content-Length, huge headers) in OpenAI's envelope. */
function clientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (!socket.writable || (err as { code?: string }).code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = new ApiError(status, `the request could not be read: ${err.message}`, 'invalid_request_error', 'bad_request').body();
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}
