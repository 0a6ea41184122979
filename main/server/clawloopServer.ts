import { createHash, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LearnStore } from '../store/learnStore.js';
import { ApiError } from './apiError.js';
import { handleChatCompletions, type ChatRouteContext } from './chatCompletions.js';
import { sendError, sendJson } from './http.js';
import type { InferenceEngine } from './inferenceEngine.js';
import { handleLearnRoute, type LearnRouteContext } from './learnRoutes.js';
import { DEFAULT_SERVER_OPTIONS, type ServerOptions } from './serverOptions.js';
import type { TrainerClient } from './trainerClient.js';

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

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * The OpenAI-compatible HTTP server. It only parses, validates, records and streams: model work
 * runs in the inference engine's worker, so this thread stays free to answer (e.g. /healthz) while
 * a long generation runs.
 */
export class ClawLoopServer {
  readonly options: ServerOptions;
  private readonly http: http.Server;
  private readonly inflight = new Set<Promise<void>>();
  private readonly sweeper: NodeJS.Timeout | null;
  private readonly ctx: ChatRouteContext;
  private readonly learnCtx: LearnRouteContext;
  private closed = false;
  private closing: Promise<void> | null = null;

  private constructor(private readonly deps: ClawLoopServerDeps) {
    this.options = { ...DEFAULT_SERVER_OPTIONS, ...deps.options };
    if (!this.options.servedModelName) this.options.servedModelName = deps.engine.info.name;
    const log = deps.log ?? (() => {});
    const wake = () => deps.trainer?.wake();
    this.ctx = {
      engine: deps.engine,
      store: deps.store.turns,
      onLearnable: wake,
      servedModelName: this.options.servedModelName,
      maxBodyBytes: this.options.maxBodyBytes,
      keepAliveMs: this.options.keepAliveMs,
      adapterVersion: () => deps.engine.adapterVersion,
      log,
    };
    this.learnCtx = {
      store: deps.store,
      trainer: deps.trainer ?? null,
      dataDir: deps.dataDir,
      modelName: deps.engine.info.name,
      maxBodyBytes: this.options.maxBodyBytes,
    };
    this.http = http.createServer((req, res) => {
      const p = this.route(req, res).catch((err) => {
        log(`clawloop: unhandled error on ${req.method} ${req.url}: ${(err as Error).stack ?? err}`);
        sendError(res, new ApiError(500, `internal error: ${(err as Error).message}`, 'server_error', 'internal_error'));
      });
      this.inflight.add(p);
      p.finally(() => this.inflight.delete(p));
    });
    this.http.keepAliveTimeout = 65_000;
    this.http.requestTimeout = 0; // generations can be long; clients time themselves out
    const idle = this.options.sessionIdleMs;
    this.sweeper =
      idle > 0
        ? setInterval(
            () => {
              try {
                const n = deps.store.turns.endIdleSessions(Date.now(), idle);
                if (n) {
                  log(`clawloop: ended ${n} idle session(s)`);
                  wake();
                }
              } catch (err) {
                log(`clawloop: ending idle sessions failed: ${(err as Error).message}`);
              }
            },
            Math.max(1000, Math.min(60_000, Math.floor(idle / 4))),
          )
        : null;
    this.sweeper?.unref();
  }

  /** Starts listening; resolves once the port is bound. */
  static async start(deps: ClawLoopServerDeps): Promise<ClawLoopServer> {
    const server = new ClawLoopServer(deps);
    await new Promise<void>((resolve, reject) => {
      server.http.once('error', reject);
      server.http.listen(server.options.port, server.options.host, () => {
        server.http.off('error', reject);
        resolve();
      });
    });
    return server;
  }

  get port(): number {
    return (this.http.address() as AddressInfo).port;
  }

  /** Base URL of the OpenAI API, e.g. http://127.0.0.1:30000/v1. */
  get url(): string {
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${this.port}/v1`;
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const o = this.options;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (o.corsOrigin) {
      res.setHeader('access-control-allow-origin', o.corsOrigin);
      res.setHeader('access-control-expose-headers', 'x-clawloop-adapter-version, x-clawloop-completion-id, retry-after-ms');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          'access-control-allow-methods': 'GET, POST, PUT, OPTIONS',
          'access-control-allow-headers': 'authorization, content-type, x-session-id, x-turn-type, x-session-done',
          'access-control-max-age': '600',
        });
        res.end();
        return;
      }
    }
    if (path === '/healthz' || path === '/health') {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return sendError(res, new ApiError(405, `${req.method} is not allowed on ${path}; use GET`));
      return sendJson(res, 200, { status: this.closed ? 'shutting_down' : 'ok', model: o.servedModelName, ...this.deps.engine.load });
    }
    if (o.apiKey) {
      const auth = req.headers.authorization ?? '';
      const m = /^Bearer\s+(.+)$/i.exec(auth);
      if (!m || !sameSecret(m[1].trim(), o.apiKey)) {
        req.resume();
        return sendError(
          res,
          new ApiError(
            401,
            'invalid or missing API key: send Authorization: Bearer <key> (the key given to clawloop serve)',
            'authentication_error',
            'invalid_api_key',
          ),
        );
      }
    }
    switch (path) {
      case '/v1/chat/completions':
      case '/chat/completions':
        if (req.method !== 'POST') return sendError(res, new ApiError(405, `${req.method} is not allowed on ${path}; use POST`));
        if (this.closed) return sendError(res, new ApiError(503, 'the server is shutting down', 'server_error', 'shutting_down'));
        return handleChatCompletions(this.ctx, req, res);
      case '/v1/models':
      case '/models':
        if (req.method !== 'GET') return sendError(res, new ApiError(405, `${req.method} is not allowed on ${path}; use GET`));
        return sendJson(res, 200, {
          object: 'list',
          data: [
            {
              id: o.servedModelName,
              object: 'model',
              created: 0,
              owned_by: 'clawloop',
              context_length: this.deps.engine.info.contextLength,
            },
          ],
        });
      default:
        if (await handleLearnRoute(this.learnCtx, path, req, res, url)) return;
        req.resume();
        return sendError(
          res,
          new ApiError(
            404,
            `no route ${req.method} ${path}; see the README for the API (POST /v1/chat/completions, GET /v1/models, POST /v1/feedback, /api/...)`,
            'invalid_request_error',
            'not_found',
          ),
        );
    }
  }

  /**
   * Stops accepting requests, lets requests in flight finish (aborting them after `graceMs`, or at
   * once with `abort`), then closes the engine. The caller closes the database afterwards.
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
    const stopped = new Promise<void>((resolve) => this.http.close(() => resolve()));
    this.http.closeIdleConnections();
    const grace = opts.abort ? 0 : (opts.graceMs ?? 30_000);
    const drained = Promise.allSettled([...this.inflight]);
    const timedOut = await Promise.race([drained.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), grace).unref())]);
    await this.deps.engine.close({ abort: timedOut || opts.abort });
    await Promise.allSettled([...this.inflight]);
    this.http.closeAllConnections();
    await stopped;
  }
}
