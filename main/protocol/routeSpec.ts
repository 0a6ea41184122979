/** The shape of an entry of the route table (api.ts), and how a route's path is filled in. */
import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a route answers with on success. */
export type ResponseSpec =
  /** One JSON document. */
  | { kind: 'json'; schema: z.ZodType }
  /** JSON, or with `"stream": true` server-sent `data:` events, each a `chunk`, ending with `data: [DONE]`. */
  | { kind: 'json_or_sse'; schema: z.ZodType; chunk: z.ZodType }
  /** Server-sent events named by `event:` (see main/protocol/events.ts). */
  | { kind: 'events' }
  /** Newline-delimited JSON, one `line` per line. */
  | { kind: 'jsonl'; line: z.ZodType }
  /** Files of the built app. */
  | { kind: 'static' };

export interface RouteSpec {
  method: HttpMethod;
  /** The path, with `{name}` for a path parameter (one path segment, percent-decoded). */
  path: string;
  /** Other paths that answer the same (e.g. without the /v1 prefix, for clients that drop it). */
  aliases?: readonly string[];
  summary: string;
  /** Needs `Authorization: Bearer <key>` when the server has an API key. */
  auth: boolean;
  query?: z.ZodType;
  /** The JSON body; `bodyOptional`: an empty body is read as `{}`. */
  body?: z.ZodType;
  bodyOptional?: boolean;
  response: ResponseSpec;
  /** HTTP statuses other than 200 this route may answer with, besides 400/401/403/404/405/413/415 that any route may. */
  errors?: readonly number[];
}

/** The path parameter names of a route, e.g. ['id'] for /api/checkpoints/{id}/rollback. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}

/** A route's path with its parameters filled in (percent-encoded). */
export function routePath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`the path ${path} needs {${name}}`);
    return encodeURIComponent(v);
  });
}
