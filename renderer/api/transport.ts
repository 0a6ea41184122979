/**
 * The one place the app talks HTTP to the core: same origin, `Authorization: Bearer <key>` when a
 * key is known, the session proof that goes with the sign-in cookie, `Content-Type: application/json` on every body (the core refuses other bodies), and
 * OpenAI's error envelope turned into an ApiRequestError whose message the UI shows where the action
 * happened.
 */
import type { ApiErrorBody } from './contract.js';

/** A request the core answered with an error. */
export class ApiRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly type: string | null = null,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

/** The core did not answer at all (not running, restarting, or the network between is down). */
export class CoreUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CoreUnreachableError';
  }
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  /** Prefix of every path; '' (default) means the page's own origin. */
  baseUrl?: string;
  /** The fetch to use; default the global one. */
  fetch?: FetchLike;
  /** The API key to send, or null for none. */
  getKey: () => string | null;
  /** This browser's session proof (sessionProof.ts), sent with the cookie; default none. */
  getProof?: () => string | null;
  /** Called on a 401, so the app can ask for the key. */
  onUnauthorized?: (err: ApiRequestError) => void;
  /** Called with true whenever the core answers and with false when it cannot be reached. */
  onReachability?: (up: boolean, err?: Error) => void;
  /**
   * Called when the core refused a request because it is shutting down (503 `shutting_down`): it
   * still answers reads while it finishes a training step, so it is not "unreachable".
   */
  onShuttingDown?: (err: ApiRequestError) => void;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export function queryString(q: RequestOptions['query']): string {
  if (!q) return '';
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** Reads an error response into an ApiRequestError with the server's own sentence. */
export async function errorFromResponse(res: Response): Promise<ApiRequestError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<ApiErrorBody>;
    if (body.error && typeof body.error.message === 'string') {
      const e = body.error;
      return new ApiRequestError(e.message, res.status, e.type ?? null, e.code ?? null, e.param ?? null);
    }
  } catch {
    // not JSON: fall through to a generic message
  }
  const snippet = text.trim().slice(0, 200);
  return new ApiRequestError(`The core answered HTTP ${res.status}${snippet ? `: ${snippet}` : ' with no explanation'}.`, res.status);
}

function isAbort(err: unknown): boolean {
  return (err as { name?: string })?.name === 'AbortError';
}

export class Transport {
  private readonly fetchFn: FetchLike;
  readonly baseUrl: string;

  constructor(private readonly o: TransportOptions) {
    this.baseUrl = o.baseUrl ?? '';
    this.fetchFn = o.fetch ?? ((input, init) => fetch(input, init));
  }

  /** Headers every request carries (auth), plus `extra`. */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    const key = this.o.getKey();
    const proof = this.o.getProof?.() ?? null;
    return { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(proof ? { 'x-clawloop-proof': proof } : {}), ...extra };
  }

  /** Sends a request; resolves with a 2xx response, rejects with ApiRequestError or CoreUnreachableError. */
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers = this.headers(opts.headers);
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    let res: Response;
    try {
      res = await this.fetchFn(`${this.baseUrl}${path}${queryString(opts.query)}`, { method, headers, body, signal: opts.signal });
    } catch (err) {
      if (isAbort(err)) throw err;
      const e = new CoreUnreachableError(`ClawLoop's core did not answer ${method} ${path}: ${(err as Error).message}`);
      this.o.onReachability?.(false, e);
      throw e;
    }
    if (res.status === 503 && res.headers.get('content-type')?.includes('json')) {
      const e = await errorFromResponse(res);
      if (e.code === 'shutting_down') this.o.onShuttingDown?.(e);
      throw e;
    }
    this.o.onReachability?.(true);
    if (res.ok) return res;
    const e = await errorFromResponse(res);
    if (res.status === 401) this.o.onUnauthorized?.(e);
    throw e;
  }

  /** A JSON request whose answer is JSON. */
  async json<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    return (await res.json()) as T;
  }
}
