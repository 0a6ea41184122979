import fs from 'node:fs';
import path from 'node:path';
import { APP_CONTENT_SECURITY_POLICY } from '../../protocol/contentSecurityPolicy.js';
import { ApiError } from '../apiError.js';
import { RESPONDED, type Handler } from '../routeTypes.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

/** Sent with the page: the app's policy, and no framing (a <meta> policy cannot say that). */
const PAGE_CSP = `${APP_CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`;

/** The file under `root` a request path names, or null when it escapes `root` or does not exist. */
function fileFor(root: string, urlPath: string): string | null {
  const rel = urlPath === '/' ? 'index.html' : urlPath.replace(/^\/+/, '');
  const file = path.resolve(root, rel);
  if (!file.startsWith(root + path.sep)) return null;
  return fs.existsSync(file) && fs.statSync(file).isFile() ? file : null;
}

/**
 * The built app (web mode): its files, and index.html for any other path (the app routes on the
 * client). Hashed assets are cached for a year; index.html never, so a new build shows at once.
 */
export const serveApp: Handler<'app'> = (ctx, { res, params }) => {
  const root = ctx.options.appDir ? path.resolve(ctx.options.appDir) : null;
  const index = root ? path.join(root, 'index.html') : null;
  if (!root || !index || !fs.existsSync(index)) {
    throw new ApiError(
      404,
      `no route GET ${params.file}${root ? `; the app is not built (${index} is missing): run npm run build` : ''}`,
      'invalid_request_error',
      'not_found',
    );
  }
  const file = fileFor(root, params.file) ?? (path.extname(params.file) ? null : index);
  if (!file) throw new ApiError(404, `the app has no file ${params.file}`, 'invalid_request_error', 'not_found');
  const body = fs.readFileSync(file);
  const hashed = /\/assets\//.test(file);
  res.writeHead(200, {
    'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'content-length': body.length,
    'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    'x-content-type-options': 'nosniff',
    ...(file === index ? { 'content-security-policy': PAGE_CSP, 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' } : {}),
  });
  res.end(body);
  return RESPONDED;
};
