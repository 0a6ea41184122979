import crypto from 'node:crypto';

/**
 * How the web app signs in without the API key ever being in a URL (Jupyter's way): `clawloop serve`
 * prints a one-time link, `GET /api/sign-in/{token}`, which dies on its first use and starts a browser
 * session (browserSessions.ts): an HttpOnly cookie with a session token, and a proof the page keeps
 * in its origin's storage. The key is in neither, and the link left in the history opens nothing.
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
