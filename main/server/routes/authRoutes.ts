import { ApiError } from '../apiError.js';
import { sameSecret } from '../requestGuards.js';
import type { Handler, RouteRequest } from '../routeTypes.js';
import type { ServerContext } from '../serverContext.js';
import { keyCookie } from '../signIn.js';

/** Answers a sign-in: the cookie (when the server has a key); a browser's navigation goes on to the app. */
function signedIn(ctx: ServerContext, { req, res }: RouteRequest): { signed_in: true } {
  const key = ctx.options.apiKey;
  if (key) res.setHeader('set-cookie', keyCookie(req.socket.localPort ?? ctx.options.port, key));
  if ((req.headers.accept ?? '').includes('text/html')) {
    res.writeHead(303, { location: '/', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    res.end(); // the router sends nothing more once the headers are out
  }
  return { signed_in: true };
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
  return signedIn(ctx, r);
};

/** POST /api/sign-in: the key typed into the app, exchanged for the cookie so the page need not keep it. */
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
  return signedIn(ctx, r);
};
