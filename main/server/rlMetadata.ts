import type { IncomingHttpHeaders } from 'node:http';
import { sessionIdProblem } from '../protocol/sessions.js';
import { ApiError } from './apiError.js';
import type { WireMessage } from '../protocol/openai.js';
import { openClawCallKind, openClawSessionFromHistory, stripBoundaryCount, type OpenClawCallKind } from './openclawCalls.js';

/** How a request's turn type was decided: from the RL headers (or body fields), from the OpenClaw call it is, or by default. */
export type TurnSource = 'header' | `openclaw-${OpenClawCallKind}` | 'default';

/** Session and turn metadata of one request (docs/learning-loop.md §1; docs/openclaw.md, session and turn metadata). */
export interface RlMetadata {
  /** null when no session id was given (such turns are recorded but never trained on). */
  sessionId: string | null;
  /** Only 'main' turns are trainable; a missing or unknown type is 'side'. */
  turnType: 'main' | 'side';
  /** The client marked the session finished. */
  sessionDone: boolean;
  source: TurnSource;
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value as the client meant it: Node reads header bytes as Latin-1, so the UTF-8 bytes of
 * "café" arrive as "cafÃ©" and those of an RTL override as "â\u0080®" (a C1 control between). A value
 * that is valid UTF-8 is decoded as such; any other stays Latin-1 (what Node's own fetch sends).
 */
export function headerText(raw: string): string {
  if (!/[\u0080-\u00ff]/.test(raw)) return raw;
  try {
    return utf8.decode(Buffer.from(raw, 'latin1'));
  } catch {
    return raw;
  }
}

function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.trim() ? headerText(s.trim()) : undefined;
}

function bodyStr(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

/**
 * The session a request names: `X-Session-Id`, then a `session_id` header or body field, then
 * `x-session-affinity`. Upstream OpenClaw's affinity headers (`session_id`, `x-session-affinity`)
 * carry `<session>:<compactions>`; the count is dropped so a session outlives its compactions.
 */
function namedSession(headers: IncomingHttpHeaders, body: { session_id?: unknown }): string | undefined {
  const rl = header(headers, 'x-session-id');
  if (rl) return rl;
  const affinity = header(headers, 'x-session-affinity');
  const named = header(headers, 'session_id') ?? bodyStr(body.session_id) ?? affinity;
  return named !== undefined && named === affinity ? stripBoundaryCount(named) : named;
}

/** Helper calls whose session is a throwaway of their own (OpenClaw's slug generator runs in `slug-generator-<uuid>`). */
const SESSIONLESS: ReadonlySet<OpenClawCallKind> = new Set(['slug']);

/**
 * Reads the metadata. The RL headers win when present, in OpenClaw-RL's priority order: turn
 * type from `X-Turn-Type`, then body `turn_type`. Without them, a request from upstream OpenClaw
 * (which sends none) is classified by the call it is (main: its agent turns and their tool
 * continuations, in the session its headers or its history name; side: compaction, memory
 * flushes, heartbeats, slug and other helper calls); any other request is `side`. Session end:
 * `X-Session-Done` or body `session_done` in {1, true, yes, on}.
 */
export function readRlMetadata(
  headers: IncomingHttpHeaders,
  body: { session_id?: unknown; turn_type?: unknown; session_done?: unknown; messages?: WireMessage[] },
): RlMetadata {
  const named = namedSession(headers, body);
  if (named) checkSessionId(named);
  const done = (header(headers, 'x-session-done') ?? bodyStr(body.session_done) ?? '').toLowerCase();
  const sessionDone = TRUE.has(done);
  const session = (id: string | null | undefined) => (id && id !== 'unknown' ? id : null);
  const explicit = header(headers, 'x-turn-type') ?? bodyStr(body.turn_type);
  if (explicit !== undefined) {
    return { sessionId: session(named), turnType: explicit.toLowerCase() === 'main' ? 'main' : 'side', sessionDone, source: 'header' };
  }
  const kind = body.messages ? openClawCallKind(body.messages) : null;
  if (kind === null) return { sessionId: session(named), turnType: 'side', sessionDone, source: 'default' };
  const source: TurnSource = `openclaw-${kind}`;
  if (kind === 'agent-turn' || kind === 'tool-continuation') {
    return { sessionId: session(named ?? openClawSessionFromHistory(body.messages!)), turnType: 'main', sessionDone, source };
  }
  return { sessionId: SESSIONLESS.has(kind) ? null : session(named), turnType: 'side', sessionDone, source };
}

/** A session id is shown in the app and stored with every turn: bounded, and nothing that hides or reorders text. */
function checkSessionId(id: string): void {
  const why = sessionIdProblem(id);
  if (why) throw new ApiError(400, `the session id ${why}`, 'invalid_request_error', 'invalid_session_id', 'session_id');
}
