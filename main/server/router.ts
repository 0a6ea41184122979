import type { IncomingMessage, ServerResponse } from 'node:http';
import { API, pathParams, type RouteName, type RouteSpec } from '../protocol/api.js';
import { ApiError } from './apiError.js';
import { sendError, sendJson } from './http.js';
import { checkApiKey, checkHost, checkJsonContentType, checkOrigin, refuseWhileClosing } from './requestGuards.js';
import { toApiError } from './toApiError.js';
import { decodeSegment, parseJsonText, parseRequestUrl, readBodyText, validate } from './requestParsing.js';
import { RequestLog, type RequestLogFields } from './requestLog.js';
import type { Handlers, RouteRequest } from './routeTypes.js';
import { RESPONDED } from './routeTypes.js';
import type { ServerContext } from './serverContext.js';

interface CompiledRoute {
  name: RouteName;
  spec: RouteSpec;
  pattern: RegExp;
  params: string[];
}

function compile(name: RouteName, spec: RouteSpec, path: string): CompiledRoute {
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '([^/]+)');
  return { name, spec, pattern: new RegExp(`^${source}$`), params: pathParams(path) };
}

/** The app's files answer every GET path that is not under the API prefixes. */
const API_PREFIX = /^\/(api|v1)(\/|$)/;

/**
 * Dispatch from the route table (main/protocol/api.ts) and nothing else: match, guard, parse,
 * validate, call the handler, answer. Every failure becomes OpenAI's error envelope.
 */
export class Router {
  private readonly routes: CompiledRoute[];
  private readonly staticRoute: CompiledRoute | null;
  private readonly requestLog: RequestLog;

  constructor(
    private readonly ctx: ServerContext,
    private readonly handlers: Handlers,
  ) {
    this.requestLog = new RequestLog({ format: ctx.options.logFormat, quiet: ctx.options.quiet, write: (l) => ctx.log(l) });
    const all = (Object.entries(API) as Array<[RouteName, RouteSpec]>).flatMap(([name, spec]) =>
      [spec.path, ...(spec.aliases ?? [])].map((p) => compile(name, spec, p)),
    );
    this.routes = all.filter((r) => r.spec.response.kind !== 'static');
    this.staticRoute = all.find((r) => r.spec.response.kind === 'static') ?? null;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const log = this.requestLog.begin(req, res, (req.url ?? '/').split('?')[0]);
    try {
      await this.dispatch(req, res, log);
    } catch (err) {
      req.resume();
      const e = toApiError(err);
      // A client's mistake (a prompt too long for the context…) is the request log's one line; a
      // stack trace is for what the server itself got wrong.
      if (!(err instanceof ApiError) && e.status >= 500) {
        this.ctx.log(`clawloop: unhandled error on ${req.method} ${req.url}: ${(err as Error).stack ?? err}`);
      }
      log.error ??= e.code ? `${e.message} (${e.code})` : e.message;
      sendError(res, e);
    }
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, log: RequestLogFields): Promise<void> {
    const o = this.ctx.options;
    checkHost(req, o);
    const { path, query } = parseRequestUrl(req.url);
    this.cors(req, res);
    if (req.method === 'OPTIONS' && o.corsOrigins.length) return this.preflight(res);
    const { route, params } = this.match(req.method ?? 'GET', path);
    if (route.spec.auth) checkApiKey(req, o.apiKey, req.socket.localPort ?? o.port, this.ctx.browserSessions);
    if (route.spec.method !== 'GET') {
      checkOrigin(req, o);
      refuseWhileClosing(this.ctx);
    }
    const r: RouteRequest = {
      req,
      res,
      path,
      params,
      query: route.spec.query ? validate(route.spec.query, Object.fromEntries(query), 'query') : {},
      body: await this.body(route.spec, req),
      log,
    };
    const handler = this.handlers[route.name] as (ctx: ServerContext, r: RouteRequest) => unknown;
    const result = await handler(this.ctx, r);
    if (result !== RESPONDED && !res.headersSent) sendJson(res, 200, result);
  }

  private match(method: string, path: string): { route: CompiledRoute; params: Record<string, string> } {
    const verb = method === 'HEAD' ? 'GET' : method;
    const candidates = this.routes.map((route) => ({ route, m: route.pattern.exec(path) })).filter((c) => c.m);
    const hit = candidates.find((c) => c.route.spec.method === verb);
    if (hit) {
      const params = Object.fromEntries(hit.route.params.map((p, i) => [p, decodeSegment(hit.m![i + 1], p)]));
      return { route: hit.route, params };
    }
    if (candidates.length) {
      const allowed = [...new Set(candidates.map((c) => c.route.spec.method))].join(', ');
      throw new ApiError(405, `${method} is not allowed on ${path}; use ${allowed}`, 'invalid_request_error', 'method_not_allowed', null, {
        allow: allowed,
      });
    }
    if (this.staticRoute && verb === 'GET' && !API_PREFIX.test(path)) return { route: this.staticRoute, params: { file: path } };
    throw new ApiError(
      404,
      `no route ${method} ${path}; the routes are listed in docs/api.md (POST /v1/chat/completions, GET /v1/models, POST /v1/feedback, /api/…)`,
      'invalid_request_error',
      'not_found',
    );
  }

  /** The JSON body, validated; routes without a body drain and ignore it. */
  private async body(spec: RouteSpec, req: IncomingMessage): Promise<unknown> {
    if (!spec.body) {
      req.resume();
      return undefined;
    }
    const present = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!present) {
      if (spec.bodyOptional) return validate(spec.body, {}, 'body');
      throw new ApiError(400, 'the request body is empty; expected a JSON object', 'invalid_request_error', 'invalid_json');
    }
    checkJsonContentType(req);
    const limit = this.ctx.options.maxBodyBytes ?? Infinity;
    const text = await readBodyText(req, limit);
    if (!text.trim() && spec.bodyOptional) return validate(spec.body, {}, 'body');
    return validate(spec.body, parseJsonText(text), 'body');
  }

  private cors(req: IncomingMessage, res: ServerResponse): void {
    const origins = this.ctx.options.corsOrigins;
    const origin = req.headers.origin;
    if (!origins.length || !origin) return;
    if (!origins.includes('*') && !origins.includes(origin)) return;
    res.setHeader('access-control-allow-origin', origins.includes('*') ? '*' : origin);
    res.setHeader('vary', 'origin');
    res.setHeader('access-control-expose-headers', 'x-clawloop-adapter-version, x-clawloop-completion-id, retry-after-ms');
  }

  private preflight(res: ServerResponse): void {
    res.writeHead(204, {
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
      'access-control-allow-headers': 'authorization, content-type, x-session-id, x-turn-type, x-session-done, last-event-id',
      'access-control-max-age': '600',
    });
    res.end();
  }
}
