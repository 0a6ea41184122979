import type { IncomingMessage, ServerResponse } from 'node:http';

/** How request lines are written: one human-readable line, or one JSON object per line. */
export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

/** What a route adds to its request's line (a chat completion fills in the model's side). */
export interface RequestLogFields {
  promptTokens?: number;
  /** Prompt tokens whose keys and values came from the prefix cache. */
  cachedTokens?: number;
  completionTokens?: number;
  sessionId?: string | null;
  turnType?: string;
  /** How the turn type was decided (e.g. `header`, `openclaw-agent`, `openclaw-compaction`). */
  turnKind?: string;
  adapterVersion?: number;
  finishReason?: string;
  /** Why the request was refused or failed: the error's message and code. */
  error?: string;
}

export interface RequestLogOptions {
  format: LogFormat;
  /** Only refusals and failures are written, not successful requests. */
  quiet: boolean;
  write: (line: string) => void;
}

/** The app's own reads (its files, GETs under /api/ and health checks that succeed) would drown the console: they are not logged. */
function worthLogging(method: string, path: string, status: number): boolean {
  if (status >= 400) return true;
  if (!/^\/(api|v1)(\/|$)/.test(path)) return false;
  return !(path.startsWith('/api/') && (method === 'GET' || method === 'HEAD'));
}

/** One line per request on the console: time, route, status, tokens, duration, session, turn type, adapter version. */
export class RequestLog {
  constructor(private readonly o: RequestLogOptions) {}

  /** Starts a request's line; it is written when the response ends (finished or cut off). */
  begin(req: IncomingMessage, res: ServerResponse, path: string): RequestLogFields {
    const fields: RequestLogFields = {};
    const t0 = performance.now();
    const at = new Date();
    res.once('close', () => {
      const status = res.statusCode;
      const method = req.method ?? 'GET';
      if (!worthLogging(method, path, status)) return;
      const failed = status >= 400 || fields.error !== undefined;
      if (this.o.quiet && !failed) return;
      const line = { at, method, path, status, ms: performance.now() - t0, cut: !res.writableFinished, fields };
      this.o.write(this.o.format === 'json' ? jsonLine(line) : textLine(line));
    });
    return fields;
  }
}

interface Line {
  at: Date;
  method: string;
  path: string;
  status: number;
  ms: number;
  /** The response ended before it was complete (the client went away). */
  cut: boolean;
  fields: RequestLogFields;
}

function clock(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

function textLine({ at, method, path, status, ms, cut, fields: f }: Line): string {
  const parts = [clock(at), method, path, String(status)];
  if (f.promptTokens !== undefined) {
    const cached = f.cachedTokens ? ` (${f.cachedTokens} cached)` : '';
    parts.push(`prompt ${f.promptTokens}${cached}`);
  }
  if (f.completionTokens !== undefined) parts.push(`completion ${f.completionTokens}`);
  parts.push(ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);
  if (f.sessionId !== undefined) parts.push(`session ${f.sessionId ?? '-'}`);
  if (f.turnType) parts.push(f.turnKind ? `${f.turnType} (${f.turnKind})` : f.turnType);
  if (f.adapterVersion !== undefined) parts.push(`v${f.adapterVersion}`);
  if (f.finishReason) parts.push(f.finishReason);
  if (cut) parts.push('client went away');
  if (f.error) parts.push(`${status >= 400 && status < 500 ? 'refused' : 'failed'}: ${f.error}`);
  return `clawloop: ${parts.join(' · ')}`;
}

function jsonLine({ at, method, path, status, ms, cut, fields: f }: Line): string {
  return JSON.stringify({
    time: at.toISOString(),
    method,
    path,
    status,
    duration_ms: Math.round(ms),
    prompt_tokens: f.promptTokens,
    cached_tokens: f.cachedTokens,
    completion_tokens: f.completionTokens,
    session_id: f.sessionId,
    turn_type: f.turnType,
    turn_kind: f.turnKind,
    adapter_version: f.adapterVersion,
    finish_reason: f.finishReason,
    client_went_away: cut || undefined,
    error: f.error,
  });
}
