import crypto from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { sameSecret } from './secrets.js';

/** The file in the data folder that keeps the sessions across restarts (hashes only, 0600). */
export const SESSIONS_FILE = 'browser-sessions.json';

interface Session {
  /** sha256 of the proof. */
  proof: string;
  /** sha256 of the API key it was started under: a session outlives no key change. */
  key: string;
  /** Ends at, ms since epoch. */
  expires: number;
}

/**
 * The browsers signed in to this core (web mode). Browsers send a host's cookies to every port of
 * it, and to them `http://127.0.0.1:1` and `http://127.0.0.1:2` are the same site, so whatever the
 * cookie holds reaches any server another local user runs on another port. The cookie therefore
 * holds no key, only a random session token, and that token alone opens nothing: each request must
 * also carry the session's proof in the `x-clawloop-proof` header. The page keeps the proof in its
 * localStorage, which browsers keep per origin (scheme, host *and port*), so a server on another
 * port never sees it. Sessions are kept (as hashes) in the data folder, so a restart keeps the
 * browsers signed in; a key change or their expiry ends them.
 */
export class BrowserSessions {
  /** sha256(token) → the session; hashes, so the file and a heap dump hold no usable token. */
  private readonly sessions = new Map<string, Session>();
  private readonly file: string | null;

  constructor(
    /** The data folder to keep them in; null keeps them in memory only. */
    dataDir: string | null,
    /** How long a session lasts, ms. Default 30 days. */
    readonly ttlMs = 30 * 24 * 60 * 60_000,
    /** Sessions kept at once; signing in another browser forgets the oldest. */
    private readonly maxOpen = 64,
  ) {
    this.file = dataDir ? path.join(dataDir, SESSIONS_FILE) : null;
    this.load();
  }

  /** A new session under `apiKey`: the token goes in the cookie, the proof to the page (never in a cookie or a URL). */
  issue(apiKey: string, now = Date.now()): { token: string; proof: string } {
    const token = crypto.randomBytes(24).toString('base64url');
    const proof = crypto.randomBytes(24).toString('base64url');
    this.sessions.set(digest(token), { proof: digest(proof), key: digest(apiKey), expires: now + this.ttlMs });
    if (this.sessions.size > this.maxOpen) this.sessions.delete(this.sessions.keys().next().value!);
    this.save();
    return { token, proof };
  }

  /** True when `token` names a live session started under `apiKey` and `proof` is its proof. */
  check(token: string, proof: string | null, apiKey: string, now = Date.now()): boolean {
    const s = this.sessions.get(digest(token));
    if (!s || proof === null) return false;
    if (now > s.expires) {
      this.revoke(token);
      return false;
    }
    return sameSecret(digest(proof), s.proof) && sameSecret(digest(apiKey), s.key);
  }

  /** Ends one session (signing out); unknown tokens are ignored. */
  revoke(token: string): void {
    if (this.sessions.delete(digest(token))) this.save();
  }

  /** Ends every session (the key changed: whoever signed in with the old one is out). */
  revokeAll(): void {
    this.sessions.clear();
    this.save();
  }

  private load(): void {
    if (!this.file) return;
    let data: unknown;
    try {
      data = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch {
      return; // none yet, or unreadable: the browsers sign in again
    }
    const now = Date.now();
    for (const [id, s] of Object.entries((data as { sessions?: Record<string, Session> }).sessions ?? {})) {
      if (typeof s?.proof === 'string' && typeof s.key === 'string' && typeof s.expires === 'number' && s.expires > now) {
        this.sessions.set(id, { proof: s.proof, key: s.key, expires: s.expires });
      }
    }
  }

  private save(): void {
    if (!this.file) return;
    try {
      atomicWriteFile(this.file, JSON.stringify({ sessions: Object.fromEntries(this.sessions) }), 0o600);
    } catch {
      // a full disk or a read-only folder: the sessions still hold until the next start
    }
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
