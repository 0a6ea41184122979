import crypto from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ApiError } from '../apiError.js';
import { cookieSession, sessionCookie, sessionCookieName } from '../browserSessions.js';
import type { Handler, RouteRequest } from '../routeTypes.js';
import { sameSecret } from '../secrets.js';
import type { ServerContext } from '../serverContext.js';

/** Where the app keeps its session proof (localStorage: per origin, so per port). Read by renderer/api/sessionProof.ts. */
const PROOF_STORAGE_KEY = 'clawloop.sessionProof';

/**
 * Starts a browser session for the caller (when the server has a key): the cookie goes in a
 * header, the proof is answered to the caller alone. Null without a key: nothing to prove.
 */
export function startBrowserSession(ctx: ServerContext, r: Pick<RouteRequest, 'req' | 'res'>): string | null {
  if (!ctx.options.apiKey) return null;
  const { token, proof } = ctx.browserSessions.issue(ctx.options.apiKey);
  const port = r.req.socket.localPort ?? ctx.options.port;
  r.res.setHeader('set-cookie', sessionCookie(port, token, ctx.browserSessions.ttlMs));
  return proof;
}

/**
 * The page a browser's navigation to the link gets: it stores the proof in this origin's storage
 * and replaces its own address with the app's, so the link is not even the current history entry.
 * Its one inline script is allowed by hash, nothing else is.
 */
function proofPage(res: ServerResponse, proof: string | null): void {
  const script = `try{${proof ? `localStorage.setItem(${JSON.stringify(PROOF_STORAGE_KEY)},${JSON.stringify(proof)})` : ''}}catch(e){}location.replace('/')`;
  const hash = crypto.createHash('sha256').update(script).digest('base64');
  const body = `<!doctype html><meta charset="utf-8"><title>ClawLoop: signing in</title><script>${script}</script><noscript>ClawLoop needs JavaScript.</noscript>`;
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'content-security-policy': `default-src 'none'; script-src 'sha256-${hash}'; frame-ancestors 'none'`,
  });
  res.end(body);
}

/** GET /api/sign-in/{token}: the one-time link `clawloop serve` prints. */
export const signInLink: Handler<'auth.link'> = (ctx, r) => {
  if (!ctx.signInLinks.use(r.params.token)) {
    throw new ApiError(
      403,
      "this sign-in link was used already or has expired (each link works once): open the newest link clawloop serve printed, or enter the key from the data folder's api-key file",
      'authentication_error',
      'sign_in_link_used',
    );
  }
  const proof = startBrowserSession(ctx, r);
  if (!(r.req.headers.accept ?? '').includes('text/html')) return { signed_in: true, session_proof: proof };
  proofPage(r.res, proof);
  return { signed_in: true, session_proof: null }; // not sent: the router sends nothing once the page is out
};

/** POST /api/sign-in: the key typed into the app, exchanged for a session so the page need not keep the key. */
export const signIn: Handler<'auth.signIn'> = (ctx, r) => {
  const key = ctx.options.apiKey;
  if (key && !sameSecret(r.body.api_key.trim(), key)) {
    throw new ApiError(
      401,
      "that is not this ClawLoop's API key (it is in the data folder's api-key file)",
      'authentication_error',
      'invalid_api_key',
      'api_key',
    );
  }
  return { signed_in: true, session_proof: startBrowserSession(ctx, r) };
};

/** DELETE /api/sign-in: signs this browser out; its session ends and its cookie is cleared. */
export const signOut: Handler<'auth.signOut'> = (ctx, { req, res }) => {
  const port = req.socket.localPort ?? ctx.options.port;
  const token = cookieSession(req, port);
  if (token !== null) ctx.browserSessions.revoke(token);
  res.setHeader('set-cookie', `${sessionCookieName(port)}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
  return { signed_in: false };
};
