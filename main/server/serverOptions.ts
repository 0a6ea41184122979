import type { LogFormat } from './requestLog.js';

/** Options of the ClawLoop HTTP server; `clawloop serve` maps its flags onto these. */
export interface ServerOptions {
  /** Interface to bind. Default '127.0.0.1' (this machine only); '0.0.0.0' exposes it to the network. */
  host: string;
  /** TCP port; 0 picks a free one. Default 30000. */
  port: number;
  /** When set, every route but /healthz and the app's files needs `Authorization: Bearer <apiKey>` (401 otherwise). Default: none. */
  apiKey: string | null;
  /** The model id clients send and `/v1/models` lists. Default: the model folder's name. */
  servedModelName: string;
  /**
   * Largest accepted request body in bytes (413 above). Default null: derived from the model's
   * context (64 bytes per token of context, at least 1 MiB), since a longer body cannot fit anyway.
   */
  maxBodyBytes: number | null;
  /** Requests allowed to wait while `maxBatch` run (429 with retry-after-ms beyond). Default 16. */
  maxQueue: number;
  /** Requests generating at once; their decode steps run as one batch. Default 8; 1 = one at a time. */
  maxBatch: number;
  /** Send an SSE `: keep-alive` comment after this many ms without output. Default 15000. */
  keepAliveMs: number;
  /** A session with no request for this long ends (its waiting turns close without a next state). Default 30 min; 0 = never. */
  sessionIdleMs: number;
  /**
   * Web origins allowed to call the API from a browser ('*' for any): they get CORS headers and may
   * change state. Default none: only the app the server itself serves (same origin).
   */
  corsOrigins: string[];
  /** Host names (besides loopback names and IP addresses) that requests may be addressed to. Default none. */
  allowedHosts: string[];
  /** Folders (besides the data folder's exports/) that exports may be written under. Default none. */
  exportDirs: string[];
  /** Where the built app lives (web mode); null serves no app. Default: dist/renderer of this installation. */
  appDir: string | null;
  /** /api/events streams open at once, all clients together (429 beyond). Default 64. */
  maxEventStreams: number;
  /** /api/events streams one client (address, Origin and User-Agent) may hold open (429 beyond). Default 16. */
  maxEventStreamsPerClient: number;
  /** Largest time to receive a whole request (headers and body), ms. Default 60000. */
  requestTimeoutMs: number;
  /** How each request's console line is written: 'text' (default) or 'json' (one object per line). */
  logFormat: LogFormat;
  /** Write only refused and failed requests, not successful ones. Default false. */
  quiet: boolean;
}

export const DEFAULT_SERVER_OPTIONS: ServerOptions = {
  host: '127.0.0.1',
  port: 30000,
  apiKey: null,
  servedModelName: '',
  maxBodyBytes: null,
  maxQueue: 16,
  maxBatch: 8,
  keepAliveMs: 15_000,
  sessionIdleMs: 30 * 60_000,
  corsOrigins: [],
  allowedHosts: [],
  exportDirs: [],
  appDir: null,
  requestTimeoutMs: 60_000,
  maxEventStreams: 64,
  maxEventStreamsPerClient: 16,
  logFormat: 'text',
  quiet: false,
};

/** The body limit that follows from a model's context length: 64 bytes per token, at least 1 MiB. */
export function bodyLimitFor(contextLength: number): number {
  return Math.max(1024 * 1024, contextLength * 64);
}
