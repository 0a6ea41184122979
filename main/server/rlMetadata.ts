import type { IncomingHttpHeaders } from 'node:http';
import { MAX_SESSION_ID, UNSAFE_ID_TEXT } from '../protocol/sessions.js';
import { ApiError } from './apiError.js';

/** Session and turn metadata of one request (docs/learning-loop.md §1; docs/openclaw.md, session and turn metadata). */
export interface RlMetadata {
  /** null when no session id was given (such turns are recorded but never trained on). */
  sessionId: string | null;
  /** Only 'main' turns are trainable; a missing or unknown type is 'side'. */
  turnType: 'main' | 'side';
  /** The client marked the session finished. */
  sessionDone: boolean;
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);

function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.trim() ? s.trim() : undefined;
}

/**
 * Reads the metadata in OpenClaw-RL's priority order: session id from `X-Session-Id`, then the
 * `session_id` header or body field, then `x-session-affinity` (upstream OpenClaw's opt-in
 * header); turn type from `X-Turn-Type`, then body `turn_type`, else 'side'; session end from
 * `X-Session-Done` or body `session_done` in {1, true, yes, on}.
 */
export function readRlMetadata(
  headers: IncomingHttpHeaders,
  body: { session_id?: unknown; turn_type?: unknown; session_done?: unknown },
): RlMetadata {
  const bodyStr = (v: unknown) =>
    typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
  const sessionId =
    header(headers, 'x-session-id') ??
    header(headers, 'session_id') ??
    bodyStr(body.session_id) ??
    header(headers, 'x-session-affinity') ??
    null;
  const type = (header(headers, 'x-turn-type') ?? bodyStr(body.turn_type) ?? 'side').toLowerCase();
  const done = (header(headers, 'x-session-done') ?? bodyStr(body.session_done) ?? '').toLowerCase();
  if (sessionId !== null) checkSessionId(sessionId);
  return {
    sessionId: sessionId === 'unknown' ? null : sessionId,
    turnType: type === 'main' ? 'main' : 'side',
    sessionDone: TRUE.has(done),
  };
}

/** A session id is shown in the app and stored with every turn: bounded, and nothing that hides or reorders text. */
function checkSessionId(id: string): void {
  const why =
    id.length > MAX_SESSION_ID
      ? `is ${id.length} characters long; at most ${MAX_SESSION_ID} are accepted`
      : UNSAFE_ID_TEXT.test(id)
        ? 'holds control characters or invisible bidi/formatting characters'
        : null;
  if (why) throw new ApiError(400, `the session id ${why}`, 'invalid_request_error', 'invalid_session_id', 'session_id');
}
