import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { ApiError } from './apiError.js';

/** The largest nesting of arrays and objects a JSON body may have (deeper values crash structured cloning). */
export const MAX_JSON_DEPTH = 64;

/** The path and query of a request; a malformed URL or percent-escape is a 400, never a crash. */
export function parseRequestUrl(raw: string | undefined): { path: string; query: URLSearchParams } {
  const text = raw ?? '/';
  const q = text.indexOf('?');
  const rawPath = q >= 0 ? text.slice(0, q) : text;
  let query: URLSearchParams;
  try {
    query = new URLSearchParams(q >= 0 ? text.slice(q + 1) : '');
  } catch {
    throw new ApiError(400, 'the query string is malformed', 'invalid_request_error', 'invalid_url');
  }
  if (!rawPath.startsWith('/'))
    throw new ApiError(400, `the request target '${text.slice(0, 100)}' is not a path`, 'invalid_request_error', 'invalid_url');
  const path = rawPath.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
  return { path, query };
}

/** Decodes one path segment; a malformed %-escape is a 400 naming the parameter. */
export function decodeSegment(segment: string, param: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError(
      400,
      `the path parameter ${param} '${segment}' has a malformed %-escape`,
      'invalid_request_error',
      'invalid_value',
      param,
    );
  }
}

/** Reads a request body as text, refusing more than `maxBytes` (413). */
export async function readBodyText(req: IncomingMessage, maxBytes: number): Promise<string> {
  const tooLarge = (what: string) =>
    new ApiError(
      413,
      `${what}; the limit is ${maxBytes} bytes (server option --max-body-bytes)`,
      'invalid_request_error',
      'request_too_large',
    );
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume(); // drain, so the 413 can be sent
    throw tooLarge(`the request body is ${declared} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      req.resume();
      throw tooLarge('the request body exceeds the limit');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The deepest nesting of arrays/objects in a JSON text (strings skipped), without parsing it. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Parses a JSON body (400 for invalid JSON or nesting deeper than MAX_JSON_DEPTH). */
export function parseJsonText(text: string): unknown {
  if (!text.trim()) throw new ApiError(400, 'the request body is empty; expected a JSON object', 'invalid_request_error', 'invalid_json');
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH)
    throw new ApiError(
      400,
      `the request body nests ${depth} levels deep; at most ${MAX_JSON_DEPTH} are accepted`,
      'invalid_request_error',
      'invalid_json',
    );
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, `the request body is not valid JSON: ${(err as Error).message}`, 'invalid_request_error', 'invalid_json');
  }
}

type Issue = z.core.$ZodIssue;

/** Where an issue is, as a dotted path (an unknown key names the key itself). */
function issuePath(i: Issue): string {
  const keys = i.code === 'unrecognized_keys' ? [...i.path, i.keys[0]] : i.path;
  return keys.map(String).join('.');
}

/** The schema of the field at `path` (optional, nullable and default wrappers removed), if it can be found. */
function schemaAt(schema: z.ZodType, path: PropertyKey[]): z.ZodType | undefined {
  const unwrap = (x: z.ZodType | undefined) => {
    while (x && !('shape' in x) && typeof (x as { unwrap?: unknown }).unwrap === 'function')
      x = (x as unknown as { unwrap(): z.ZodType }).unwrap();
    return x;
  };
  let s: z.ZodType | undefined = unwrap(schema);
  for (const key of path) {
    const shape: Record<string, z.ZodType> | undefined = (s as { shape?: Record<string, z.ZodType> } | undefined)?.shape;
    s = unwrap(shape && typeof key === 'string' ? shape[key] : undefined);
  }
  return s;
}

/** The description a schema gives the field at `path` (set with .describe()), if any. */
function describeAt(schema: z.ZodType, path: PropertyKey[]): string | undefined {
  let s: z.ZodType | undefined = schema;
  for (const key of path) {
    const parent = schemaAt(s!, []);
    s = (parent as { shape?: Record<string, z.ZodType> } | undefined)?.shape?.[key as string];
    if (!s) return undefined;
  }
  return s.description;
}

/** The field names of the object at `path`. */
function fieldsAt(schema: z.ZodType, path: PropertyKey[]): string[] {
  const shape = (schemaAt(schema, path) as { shape?: Record<string, z.ZodType> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

/**
 * Validates `value` with `schema`; a failure is a 400 in OpenAI's envelope whose `param` names the
 * field, with zod's reason and, where the schema documents the field, what it expects.
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown, what: 'body' | 'query'): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const first = r.error.issues[0];
  const where = issuePath(first) || what;
  const more = r.error.issues.length > 1 ? ` (and ${r.error.issues.length - 1} more problem${r.error.issues.length > 2 ? 's' : ''})` : '';
  throw new ApiError(
    400,
    `invalid ${what === 'body' ? 'request' : 'query'}: ${explain(schema, first, where)}${more}`,
    'invalid_request_error',
    'invalid_request',
    where,
  );
}

/** One issue as a sentence: what is wrong with which field, and what the field expects. */
function explain(schema: z.ZodType, i: Issue, where: string): string {
  if (i.code === 'unrecognized_keys') {
    const known = fieldsAt(schema, i.path);
    return `unknown field '${i.keys[0]}'${known.length ? `; the fields are: ${known.join(', ')}` : ''}`;
  }
  const doc = describeAt(schema, i.path);
  return `${where}: ${i.message}${doc ? ` — expected ${doc}` : ''}`;
}
