import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { ApiError } from './apiError.js';
import type { ServerOptions } from './serverOptions.js';
import { cookieKey } from './signIn.js';

/**
 * Guards that keep web pages from using the server (the way Ollama and Jupyter guard theirs):
 * a Host check against DNS rebinding, an Origin check on state-changing requests, JSON-only bodies
 * (so a page cannot send a "simple" text/plain POST without a preflight), and the API key.
 */

function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

/**
 * A Host header is trusted when it names this machine by a loopback name, is an IP address (a
 * page cannot rebind a literal address to us), is the interface we bound, or was allowed by the user.
 */
export function hostAllowed(hostHeader: string | undefined, o: Pick<ServerOptions, 'host' | 'allowedHosts'>): boolean {
  if (hostHeader === undefined) return true; // HTTP/1.0 clients; browsers always send Host
  const name = hostName(hostHeader);
  if (!name) return false;
  if (name === 'localhost' || name.endsWith('.localhost') || isIP(name)) return true;
  return name === o.host.toLowerCase() || o.allowedHosts.some((h) => h.toLowerCase() === name);
}

export function checkHost(req: IncomingMessage, o: ServerOptions): void {
  if (hostAllowed(req.headers.host, o)) return;
  throw new ApiError(
    403,
    `the Host header '${req.headers.host}' is not this machine's: use http://127.0.0.1:${o.port}, or allow the name with --allowed-host`,
    'invalid_request_error',
    'forbidden_host',
  );
}

/** True when `origin` is the page the server itself serves (same scheme-less host and port) or a configured one. */
export function originAllowed(origin: string, hostHeader: string | undefined, corsOrigins: readonly string[]): boolean {
  if (corsOrigins.includes('*') || corsOrigins.includes(origin)) return true;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null" of sandboxed frames and file:// pages
  }
  return u.protocol === 'http:' && hostHeader !== undefined && u.host === hostHeader.toLowerCase();
}

/** State-changing requests from a browser must come from the app's own origin or a configured one. */
export function checkOrigin(req: IncomingMessage, o: ServerOptions): void {
  const origin = req.headers.origin;
  if (origin === undefined || originAllowed(origin, req.headers.host, o.corsOrigins)) return;
  throw new ApiError(
    403,
    `requests from the web page ${origin} may not change anything here; allow that origin with --cors ${origin} if you trust it`,
    'invalid_request_error',
    'forbidden_origin',
  );
}

/** A request that carries a body must say it is JSON. */
export function checkJsonContentType(req: IncomingMessage): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return;
  throw new ApiError(
    415,
    `the body must be JSON sent with Content-Type: application/json (got ${type ? `'${type}'` : 'none'}; with curl add -H 'content-type: application/json')`,
    'invalid_request_error',
    'unsupported_media_type',
  );
}

/** Compares two secrets in constant time (hashes first, so lengths do not leak). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Passes a request that carries the key: `Authorization: Bearer <key>`, or the app's sign-in cookie (see signIn.ts). */
export function checkApiKey(req: IncomingMessage, apiKey: string | null, port: number): void {
  if (!apiKey) return;
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (m && sameSecret(m[1].trim(), apiKey)) return;
  const cookie = cookieKey(req, port);
  if (cookie !== null && sameSecret(cookie, apiKey)) return;
  throw new ApiError(
    401,
    "invalid or missing API key: send Authorization: Bearer <key> (the key is in the data folder's api-key file, or the one given to clawloop serve)",
    'authentication_error',
    'invalid_api_key',
  );
}

/**
 * While the server shuts down, only reads are answered (the app keeps showing what happens): a
 * request that would start or change something gets 503 `shutting_down`, saying why in words.
 */
export function refuseWhileClosing(ctx: { closing(): boolean; shutdownMessage(): string | null }): void {
  if (!ctx.closing()) return;
  const why = ctx.shutdownMessage() ?? 'ClawLoop is shutting down';
  throw new ApiError(503, `${why}. It takes no new requests until it is started again.`, 'server_error', 'shutting_down');
}
