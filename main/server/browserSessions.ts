import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { sameSecret } from './secrets.js';

/**
 * The browsers signed in to this core (web mode). Browsers send a host's cookies to every port of
 * it, and to them `http://127.0.0.1:1` and `http://127.0.0.1:2` are the same site, so whatever the
 * cookie holds reaches any server another local user runs on another port. The cookie therefore
 * holds no key, only a random session token, and that token alone opens nothing: each request must
 * also carry the session's proof in the `x-clawloop-proof` header. The page keeps the proof in its
 * localStorage, which browsers keep per origin (scheme, host *and port*), so a server on another
 * port never sees it. Sessions live in memory: a restart, a key change or their expiry ends them.
 */
export class BrowserSessions {
  /** sha256(token) → the session; hashes, so a heap dump holds no usable token. */
  private readonly sessions = new Map<string, { proof: string; expires: number }>();

  constructor(
    /** How long a session lasts, ms. Default 30 days. */
    readonly ttlMs = 30 * 24 * 60 * 60_000,
    /** Sessions kept at once; signing in another browser forgets the oldest. */
    private readonly maxOpen = 64,
  ) {}

  /** A new session: the token goes in the cookie, the proof to the page (never in a cookie or a URL). */
  issue(now = Date.now()): { token: string; proof: string } {
    const token = crypto.randomBytes(24).toString('base64url');
    const proof = crypto.randomBytes(24).toString('base64url');
    this.sessions.set(digest(token), { proof: digest(proof), expires: now + this.ttlMs });
    if (this.sessions.size > this.maxOpen) this.sessions.delete(this.sessions.keys().next().value!);
    return { token, proof };
  }

  /** True when `token` names a live session and `proof` is its proof. */
  check(token: string, proof: string | null, now = Date.now()): boolean {
    const s = this.sessions.get(digest(token));
    if (!s) return false;
    if (now > s.expires) {
      this.sessions.delete(digest(token));
      return false;
    }
    return proof !== null && sameSecret(digest(proof), s.proof);
  }

  /** Ends one session (signing out); unknown tokens are ignored. */
  revoke(token: string): void {
    this.sessions.delete(digest(token));
  }

  /** Ends every session (the key changed: whoever signed in with the old one is out). */
  revokeAll(): void {
    this.sessions.clear();
  }

  get size(): number {
    return this.sessions.size;
  }
}

const digest = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/** The header that carries a session's proof. */
export const PROOF_HEADER = 'x-clawloop-proof';

/** The cookie's name carries the port: cookies are shared by every port of a host, cores are not. */
export const sessionCookieName = (port: number) => `clawloop_session_${port}`;

/** The Set-Cookie value that holds a session token (never the key). */
export function sessionCookie(port: number, token: string, ttlMs: number): string {
  return `${sessionCookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.floor(ttlMs / 1000)}`;
}

/** The session token a request's cookie carries for this port, or null. */
export function cookieSession(req: IncomingMessage, port: number): string | null {
  const name = sessionCookieName(port);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** The proof a request carries, or null. */
export function requestProof(req: IncomingMessage): string | null {
  const v = req.headers[PROOF_HEADER];
  return typeof v === 'string' && v ? v : null;
}
