import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * How the web app signs in without the API key ever being in a URL (Jupyter's way): `clawloop serve`
 * prints a one-time link, `GET /api/sign-in/{token}`, which dies on its first use and answers with an
 * HttpOnly, SameSite=Strict cookie that holds the key. The page's scripts never see the key, other
 * sites' requests never carry it, and the link left in the browser's history opens nothing.
 */
export class SignInLinks {
  private readonly tokens = new Map<string, number>();

  constructor(
    /** How long an unused link works, ms. Default 24 h. */
    private readonly ttlMs = 24 * 60 * 60_000,
    /** Unused links kept at once; issuing another forgets the oldest. */
    private readonly maxOpen = 16,
  ) {}

  /** A new one-time token. */
  issue(now = Date.now()): string {
    const token = crypto.randomBytes(24).toString('base64url');
    this.tokens.set(token, now + this.ttlMs);
    if (this.tokens.size > this.maxOpen) this.tokens.delete(this.tokens.keys().next().value!);
    return token;
  }

  /** True once for a token issued here and not expired; it is forgotten either way. */
  use(token: string, now = Date.now()): boolean {
    const expires = this.tokens.get(token);
    this.tokens.delete(token);
    return expires !== undefined && now <= expires;
  }
}

/** The cookie's name carries the port: cookies are shared by every port of a host, cores are not. */
export const keyCookieName = (port: number) => `clawloop_key_${port}`;

/** The Set-Cookie value that signs a browser in with `key` (a year; the key changing ends it). */
export function keyCookie(port: number, key: string): string {
  return `${keyCookieName(port)}=${encodeURIComponent(key)}; HttpOnly; SameSite=Strict; Path=/; Max-Age=31536000`;
}

/** The key a request's cookie carries for this port, or null. */
export function cookieKey(req: IncomingMessage, port: number): string | null {
  const name = keyCookieName(port);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}
