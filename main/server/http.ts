import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './apiError.js';

/** Reads a JSON request body, refusing more than `maxBytes` (413) and invalid JSON (400). */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume(); // drain, so the 413 can be sent
    throw new ApiError(
      413,
      `the request body is ${declared} bytes; the limit is ${maxBytes} (server option --max-body-bytes)`,
      'invalid_request_error',
      'request_too_large',
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      req.resume();
      throw new ApiError(
        413,
        `the request body exceeds the limit of ${maxBytes} bytes (server option --max-body-bytes)`,
        'invalid_request_error',
        'request_too_large',
      );
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) throw new ApiError(400, 'the request body is empty; expected a JSON object');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, `the request body is not valid JSON: ${(err as Error).message}`);
  }
}

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
