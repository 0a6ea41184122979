import type { ServerResponse } from 'node:http';
import type { ApiError } from './apiError.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = JSON.stringify(body);
  // no-store: conversations, settings and keys must not stay in a browser's disk cache.
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(data),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(data);
}

export function sendError(res: ServerResponse, err: ApiError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, err.status, err.body(), err.headers);
}
