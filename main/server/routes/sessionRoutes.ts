import { messageText } from '../../engine/text/index.js';
import { INTERNAL_CONTEXT, stripEnvelope } from '../../protocol/messageEnvelope.js';
import { shownText, type SessionInfo } from '../../protocol/sessions.js';
import type { SessionSummary } from '../../store/appQueries.js';
import { ApiError } from '../apiError.js';
import type { Handler } from '../routeTypes.js';
import type { ServerContext } from '../serverContext.js';
import { storageError } from '../storageError.js';
import { hintWaitMs, turnView } from './turnView.js';

const PREVIEW_CHARS = 120;

/** Titles stored before they were checked, and previews (the user's messages), as a list may show them. */
function shown(text: string | null): string | null {
  return text === null ? null : shownText(text);
}

/**
 * The opening user message of a session, from its first request's messages: the last user message
 * that is not OpenClaw's own context, as plain text in the user's own words (no OpenClaw envelope),
 * shortened for lists.
 */
function preview(firstRequest: string | null): string | null {
  if (firstRequest === null) return null;
  let messages: Array<{ role?: unknown; content?: unknown }>;
  try {
    messages = JSON.parse(firstRequest) as typeof messages;
  } catch {
    return null;
  }
  const texts = messages.filter((m) => m.role === 'user').map((m) => safeText(m.content));
  const text = texts.reverse().find((t) => t && !t.startsWith(INTERNAL_CONTEXT)) ?? null;
  if (text === null) return null;
  const line = shown(stripEnvelope(text))!.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}

function safeText(content: unknown): string {
  try {
    return typeof content === 'string' ? content : messageText(content as Parameters<typeof messageText>[0], 'content');
  } catch {
    return '';
  }
}

export function sessionInfo(s: SessionSummary): SessionInfo {
  return {
    id: s.id,
    title: shown(s.title),
    created_at: s.createdAt,
    last_seen_at: s.lastSeenAt,
    ended_at: s.endedAt,
    end_reason: s.endReason,
    turns: s.turns,
    main_turns: s.mainTurns,
    preview: preview(s.firstContent),
  };
}

function sessionOrThrow(ctx: ServerContext, id: string): SessionSummary {
  const s = ctx.app.session(id);
  if (!s) throw new ApiError(404, `no session '${id}'`, 'invalid_request_error', 'not_found', 'id');
  return s;
}

/**
 * A page of sessions, newest activity first; the first page ends with the pseudo-session "unknown"
 * (turns that came without a session id) when there are such turns. At 6.7k sessions the whole
 * list was 1.9 MB built in 190–370 ms with nothing else answered.
 */
export const listSessions: Handler<'sessions.list'> = (ctx, { query }) => {
  const rows = ctx.app.sessionPage(query.limit, query.cursor === undefined ? undefined : fromCursor(query.cursor));
  const page = rows.slice(0, query.limit);
  const hasMore = rows.length > query.limit;
  const loose = query.cursor === undefined ? ctx.app.unattached() : null;
  const last = page.at(-1);
  return {
    object: 'list',
    data: [...page, ...(loose ? [loose] : [])].map(sessionInfo),
    has_more: hasMore,
    next_cursor: hasMore && last ? toCursor(last) : null,
  };
};

/** A page's end as an opaque cursor: the last session's activity time and id. */
function toCursor(s: SessionSummary): string {
  return Buffer.from(JSON.stringify([s.lastSeenAt, s.id])).toString('base64url');
}

function fromCursor(cursor: string): { lastSeenAt: number; id: string } {
  try {
    const [lastSeenAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isSafeInteger(lastSeenAt) && typeof id === 'string') return { lastSeenAt: lastSeenAt as number, id };
  } catch {
    // reported below
  }
  throw new ApiError(
    400,
    "cursor: not a next_cursor this server gave; start again without 'cursor'",
    'invalid_request_error',
    'invalid_cursor',
    'cursor',
  );
}

export const getSession: Handler<'sessions.get'> = (ctx, { params }) => {
  const id = params.id;
  const turns = id === 'unknown' ? ctx.store.turns.unattachedTurns() : ctx.store.turns.sessionTurns(id);
  const s = id === 'unknown' ? ctx.app.unattached() : ctx.app.session(id);
  if (!s) throw new ApiError(404, `no session '${id}'`, 'invalid_request_error', 'not_found', 'id');
  const { main_turns: _mainTurns, ...info } = sessionInfo(s);
  return { ...info, turns: turns.map((t) => turnView(ctx.store, ctx.app, t, hintWaitMs(ctx))) };
};

export const updateSession: Handler<'sessions.update'> = (ctx, { params, body }) => {
  sessionOrThrow(ctx, params.id);
  ctx.app.setTitle(params.id, body.title);
  return sessionInfo(sessionOrThrow(ctx, params.id));
};

export const deleteSession: Handler<'sessions.delete'> = (ctx, { params }) => {
  let out: ReturnType<ServerContext['app']['deleteSession']>;
  try {
    out = ctx.app.deleteSession(params.id);
  } catch (err) {
    throw storageError(err, ctx.dataDir);
  }
  if (out === null) throw new ApiError(404, `no session '${params.id}'`, 'invalid_request_error', 'not_found', 'id');
  if (out === 'training') {
    throw new ApiError(
      409,
      `a training step is using session '${params.id}' right now; try again when the step is done`,
      'invalid_request_error',
      'session_busy',
      'id',
    );
  }
  return { id: params.id, deleted: true, turns: out.turns, samples_removed: out.samplesRemoved };
};

export const endSession: Handler<'sessions.end'> = (ctx, { params, body }) => {
  const id = params.id;
  let state: { role: string; text: string; at: number } | null = null;
  if (body.message) {
    let text: string;
    try {
      text = messageText(body.message.content, 'message');
    } catch (err) {
      throw new ApiError(400, (err as Error).message, 'invalid_request_error', 'invalid_value', 'message.content');
    }
    state = { role: body.message.role, text, at: Date.now() };
  }
  const out = ctx.store.turns.finishSession(id, state, Date.now());
  if (out === null) throw new ApiError(404, `no session '${id}'`, 'invalid_request_error', 'not_found', 'id');
  if (out === 'ended') throw new ApiError(409, `session '${id}' has already ended`, 'invalid_request_error', 'session_ended', 'id');
  if (out.linkedTurnId && state) {
    ctx.events.publish({ event: 'feedback.received', data: { turn_id: out.linkedTurnId, kind: 'next_state', text: state.text } });
  }
  ctx.wakeTrainer();
  return { id, ended: true, next_state_of: out.linkedTurnId };
};
