import type { ServerResponse } from 'node:http';
import type { ApiError } from './apiError.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers });
  res.end(data);
}

export function sendError(res: ServerResponse, err: ApiError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, err.status, err.body(), err.headers);
}
