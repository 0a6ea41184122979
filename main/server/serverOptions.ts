/** Options of the ClawLoop HTTP server; `clawloop serve` maps its flags onto these. */
export interface ServerOptions {
  /** Interface to bind. Default '127.0.0.1' (this machine only); '0.0.0.0' exposes it to the network. */
  host: string;
  /** TCP port; 0 picks a free one. Default 30000. */
  port: number;
  /** When set, every route but /healthz needs `Authorization: Bearer <apiKey>` (401 otherwise). Default: none. */
  apiKey: string | null;
  /** The model id clients send and `/v1/models` lists. Default: the model folder's name. */
  servedModelName: string;
  /** Largest accepted request body in bytes (413 above). Default 32 MiB. */
  maxBodyBytes: number;
  /** Requests allowed to wait while `maxBatch` run (429 with retry-after-ms beyond). Default 16. */
  maxQueue: number;
  /** Requests generating at once; their decode steps run as one batch. Default 8; 1 = one at a time. */
  maxBatch: number;
  /** Send an SSE `: keep-alive` comment after this many ms without output. Default 15000. */
  keepAliveMs: number;
  /** A session with no request for this long ends (its waiting turns close without a next state). Default 30 min; 0 = never. */
  sessionIdleMs: number;
  /** Allowed CORS origin ('*' or a URL); null sends no CORS headers (default). */
  corsOrigin: string | null;
}

export const DEFAULT_SERVER_OPTIONS: ServerOptions = {
  host: '127.0.0.1',
  port: 30000,
  apiKey: null,
  servedModelName: '',
  maxBodyBytes: 32 * 1024 * 1024,
  maxQueue: 16,
  maxBatch: 8,
  keepAliveMs: 15_000,
  sessionIdleMs: 30 * 60_000,
  corsOrigin: null,
};
