import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { ApiError } from './apiError.js';
import type { ServerOptions } from './serverOptions.js';
import { cookieSession, requestProof, type BrowserSessions } from './browserSessions.js';
import { sameSecret } from './secrets.js';

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

/**
 * Why a core without a key must not allow these CORS origins, or null: with `*` (or `null`, the
 * origin of every sandboxed frame and file:// page) any web page could read and delete conversations.
 */
export function keylessCorsProblem(corsOrigins: readonly string[]): string | null {
  const open = corsOrigins.find((o) => o === '*' || o === 'null');
  if (open === undefined) return null;
  return `--cors '${open}' without an API key would let every web page you visit read and delete your conversations: name the origins, or keep the key`;
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

/**
 * Passes a request that carries the key (`Authorization: Bearer <key>`), or a browser signed in by
 * the app: its session cookie together with the session's proof header (see browserSessions.ts; the
 * cookie alone, which other ports of this host also receive, opens nothing).
 */
export function checkApiKey(req: IncomingMessage, apiKey: string | null, port: number, sessions: BrowserSessions): void {
  if (!apiKey) return;
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (m && sameSecret(m[1].trim(), apiKey)) return;
  const token = cookieSession(req, port);
  if (token !== null && sessions.check(token, requestProof(req), apiKey)) return;
  throw new ApiError(
    401,
    token === null
      ? "invalid or missing API key: send Authorization: Bearer <key> (the key is in the data folder's api-key file, or the one given to clawloop serve)"
      : 'this browser is not signed in (its session ended, or the request lacks the page’s proof): open the newest sign-in link clawloop serve printed, or enter the API key',
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
