import type { IncomingMessage, ServerResponse } from 'node:http';
import { FeedbackRequestSchema, type CheckpointInfo } from '../protocol/training.js';
import { exportCheckpoint } from '../rl/checkpointFiles.js';
import { ConflictError, NotFoundError, type LearnStore } from '../store/learnStore.js';
import type { StoredTurn } from '../store/turnStore.js';
import { messageText } from '../engine/text/index.js';
import type { WireMessage } from '../protocol/openai.js';
import { ApiError } from './apiError.js';
import { readJsonBody, sendError, sendJson } from './http.js';
import { TrainerCommandError, type TrainerClient } from './trainerClient.js';

export interface LearnRouteContext {
  store: LearnStore;
  trainer: TrainerClient | null;
  dataDir: string;
  modelName: string;
  maxBodyBytes: number;
}

function trainerOf(ctx: LearnRouteContext): TrainerClient {
  if (!ctx.trainer) throw new ApiError(503, 'training is not running on this server', 'server_error', 'training_unavailable');
  return ctx.trainer;
}

function fromTrainer(err: unknown): ApiError {
  if (err instanceof TrainerCommandError) {
    return new ApiError(
      err.status,
      err.message,
      err.status >= 500 ? 'server_error' : 'invalid_request_error',
      err.status === 404 ? 'not_found' : 'invalid_value',
      err.field,
    );
  }
  return err instanceof ApiError ? err : new ApiError(500, (err as Error).message, 'server_error', 'internal_error');
}

async function body(req: IncomingMessage, ctx: LearnRouteContext, optional = false): Promise<Record<string, unknown>> {
  if (optional && !req.headers['content-length'] && !req.headers['transfer-encoding']) return {};
  const b = await readJsonBody(req, ctx.maxBodyBytes).catch((err) => {
    if (optional && err instanceof ApiError && /empty/.test(err.message)) return {};
    throw err;
  });
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw new ApiError(400, 'the request body must be a JSON object');
  return b as Record<string, unknown>;
}

/** A turn as the dashboard shows it: what was asked and answered, what followed, and what it taught. */
function turnView(store: LearnStore, t: StoredTurn) {
  const fb = store.feedback(t.id);
  return {
    id: t.id,
    type: t.type,
    session_id: t.sessionId,
    created_at: t.createdAt,
    completed_at: t.completedAt,
    adapter_version: t.adapterVersion,
    messages: t.requestMessages,
    response: t.responseText,
    reasoning: t.reasoningText || null,
    tool_calls: t.toolCalls,
    finish_reason: t.finishReason,
    prompt_tokens: t.promptTokens,
    completion_tokens: t.completionTokens,
    next_state: t.nextState ? { role: t.nextState.role, text: t.nextState.text } : null,
    closed: t.closed,
    learn_note: store.learnNote(t.id),
    feedback: fb ? { rating: fb.rating, hint: fb.hint, updated_at: fb.updatedAt } : null,
    judgements: store
      .judgements(t.id)
      .map((j) => ({ kind: j.kind, judge: j.judge, score: j.score, hint: j.hint, votes: j.votes, created_at: j.createdAt })),
    samples: store.samplesOfTurn(t.id).map((s) => ({
      kind: s.kind,
      reward: s.reward,
      reward_source: s.rewardSource,
      hint: s.hint,
      hint_source: s.hintSource,
      adapter_version: s.adapterVersion,
      status: s.status,
      drop_reason: s.dropReason,
      step: s.step,
    })),
  };
}

/**
 * Routes of the learning loop (under the same API key as the chat API). Returns false when the
 * path is not one of them.
 */
export async function handleLearnRoute(
  ctx: LearnRouteContext,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  const method = req.method ?? 'GET';
  const reply = (value: unknown): true => {
    sendJson(res, 200, value);
    return true;
  };
  const only = (m: string) => {
    if (method !== m) throw new ApiError(405, `${method} is not allowed on ${path}; use ${m}`);
  };
  try {
    if (path === '/v1/feedback' || path === '/feedback') {
      only('POST');
      const parsed = FeedbackRequestSchema.safeParse(await body(req, ctx));
      if (!parsed.success) {
        const i = parsed.error.issues[0];
        const field = i.path.map(String).join('.') || (i as { keys?: string[] }).keys?.[0] || 'body';
        throw new ApiError(400, `invalid feedback: ${field}: ${i.message}`, 'invalid_request_error', 'invalid_feedback', field);
      }
      const { completion_id: id, rating, hint } = parsed.data;
      const before = ctx.store.feedback(id);
      // A field left out keeps its value; null clears it.
      const nextRating = rating === undefined ? (before?.rating ?? null) : rating;
      const nextHint = hint === undefined ? (before?.hint ?? null) : hint;
      let out;
      try {
        out = ctx.store.setFeedback(id, nextRating, nextHint, Date.now());
      } catch (err) {
        if (err instanceof NotFoundError) throw new ApiError(404, err.message, 'invalid_request_error', 'not_found', 'completion_id');
        if (err instanceof ConflictError) throw new ApiError(409, err.message, 'invalid_request_error', 'already_trained', 'completion_id');
        throw err;
      }
      ctx.trainer?.wake();
      const t = out.turn;
      return reply({
        completion_id: id,
        rating: out.feedback?.rating ?? null,
        hint: out.feedback?.hint ?? null,
        updated_at: out.feedback?.updatedAt ?? Date.now(),
        session_id: t.sessionId,
        turn_type: t.type,
        trainable: t.type === 'main' && t.sessionId !== null && t.finishReason !== 'abort',
      });
    }

    if (path === '/api/training/status') {
      only('GET');
      return reply({ ...trainerOf(ctx).status, pending_turns: ctx.store.pendingTurnCount() });
    }
    if (path === '/api/training/config') {
      if (method === 'GET') return reply(trainerOf(ctx).config);
      only('PUT');
      const trainer = trainerOf(ctx);
      const config = await trainer.setConfig(await body(req, ctx)).catch((e) => Promise.reject(fromTrainer(e)));
      return reply(config);
    }
    if (path === '/api/training/pause' || path === '/api/training/resume') {
      only('POST');
      req.resume();
      const status = await trainerOf(ctx)
        .setPaused(path.endsWith('pause'))
        .catch((e) => Promise.reject(fromTrainer(e)));
      return reply(status);
    }

    if (path === '/api/checkpoints') {
      only('GET');
      const live = ctx.trainer ? ctx.store.trainerState().liveCheckpointId : null;
      const data: CheckpointInfo[] = ctx.store.checkpoints().map((c) => ({
        id: c.id,
        step: c.step,
        adapter_version: c.adapterVersion,
        parent_id: c.parentId,
        created_at: c.createdAt,
        metrics: c.metrics,
        samples: c.samples,
        pinned: c.pinned,
        live: c.id === live,
      }));
      return reply({ object: 'list', live_checkpoint: live, adapter_version: ctx.store.trainerState().liveVersion, data });
    }
    const cm = /^\/api\/checkpoints\/([^/]+)\/(rollback|export|pin)$/.exec(path);
    if (cm) {
      only('POST');
      const [, id, action] = cm;
      if (action === 'rollback') {
        req.resume();
        const r = await trainerOf(ctx)
          .rollback(decodeURIComponent(id))
          .catch((e) => Promise.reject(fromTrainer(e)));
        return reply({ checkpoint: r.checkpoint ?? 'base', adapter_version: r.version });
      }
      const cp = ctx.store.checkpoint(decodeURIComponent(id));
      if (!cp) throw new ApiError(404, `no checkpoint '${id}'`, 'invalid_request_error', 'not_found', 'id');
      if (action === 'export') {
        const b = await body(req, ctx);
        if (typeof b.dir !== 'string' || !b.dir)
          throw new ApiError(
            400,
            'export needs {"dir": "<folder to write the PEFT adapter to>"}',
            'invalid_request_error',
            'invalid_value',
            'dir',
          );
        let files: string[];
        try {
          files = exportCheckpoint(ctx.dataDir, cp.id, b.dir, ctx.modelName);
        } catch (err) {
          throw new ApiError(400, `export failed: ${(err as Error).message}`, 'invalid_request_error', 'export_failed', 'dir');
        }
        return reply({ checkpoint: cp.id, files });
      }
      const b = await body(req, ctx, true);
      if (b.pinned !== undefined && typeof b.pinned !== 'boolean')
        throw new ApiError(400, 'pinned must be true or false', 'invalid_request_error', 'invalid_value', 'pinned');
      const pinned = b.pinned === undefined ? true : (b.pinned as boolean);
      ctx.store.setPinned(cp.id, pinned);
      return reply({ checkpoint: cp.id, pinned });
    }

    if (path === '/api/metrics') {
      only('GET');
      const raw = url.searchParams.get('since');
      const since = raw === null ? 0 : Number(raw);
      if (!Number.isInteger(since) || since < 0)
        throw new ApiError(
          400,
          `since must be a step number (a non-negative integer); got '${raw}'`,
          'invalid_request_error',
          'invalid_value',
          'since',
        );
      const data = ctx.store.steps(since).map((s) => ({
        step: s.step,
        created_at: s.createdAt,
        adapter_version: s.adapterVersion,
        checkpoint_id: s.checkpointId,
        skipped: s.skipped,
        skip_reason: s.skipReason,
        ...s.metrics,
      }));
      return reply({ object: 'list', data });
    }

    if (path === '/api/sessions') {
      only('GET');
      const data = ctx.store.turns.sessions().map((s) => ({
        id: s.id,
        created_at: s.createdAt,
        last_seen_at: s.lastSeenAt,
        ended_at: s.endedAt,
        end_reason: s.endReason,
        turns: s.turns,
        main_turns: s.mainTurns,
      }));
      return reply({ object: 'list', data });
    }
    const em = /^\/api\/sessions\/([^/]+)\/end$/.exec(path);
    if (em) {
      only('POST');
      const id = decodeURIComponent(em[1]);
      const b = await body(req, ctx, true);
      const unknownKey = Object.keys(b).find((k) => k !== 'message');
      if (unknownKey)
        throw new ApiError(
          400,
          `unknown field '${unknownKey}'; the body is {"message": {"role", "content"}} or empty`,
          'invalid_request_error',
          'invalid_value',
          unknownKey,
        );
      let state: { role: string; text: string; at: number } | null = null;
      if (b.message !== undefined) {
        const m = b.message as { role?: unknown; content?: unknown };
        if (!m || typeof m !== 'object' || (m.role !== 'user' && m.role !== 'tool'))
          throw new ApiError(
            400,
            'message must be {"role": "user" | "tool", "content": …}',
            'invalid_request_error',
            'invalid_value',
            'message',
          );
        let text: string;
        try {
          text = messageText(m.content as WireMessage['content'], 'message');
        } catch (err) {
          throw new ApiError(400, (err as Error).message, 'invalid_request_error', 'invalid_value', 'message.content');
        }
        state = { role: m.role, text, at: Date.now() };
      }
      const out = ctx.store.turns.finishSession(id, state, Date.now());
      if (out === null) throw new ApiError(404, `no session '${id}'`, 'invalid_request_error', 'not_found', 'id');
      if (out === 'ended') throw new ApiError(409, `session '${id}' has already ended`, 'invalid_request_error', 'session_ended', 'id');
      if (out.linkedTurnId) ctx.trainer?.wake();
      return reply({ id, ended: true, next_state_of: out.linkedTurnId });
    }
    const sm = /^\/api\/sessions\/([^/]+)$/.exec(path);
    if (sm) {
      only('GET');
      const id = decodeURIComponent(sm[1]);
      const session = ctx.store.turns.sessions().find((s) => s.id === id);
      const turns = id === 'unknown' ? ctx.store.turns.unattachedTurns() : ctx.store.turns.sessionTurns(id);
      if (!session && !(id === 'unknown' && turns.length))
        throw new ApiError(404, `no session '${id}'`, 'invalid_request_error', 'not_found', 'id');
      return reply({
        id,
        created_at: session?.createdAt ?? null,
        ended_at: session?.endedAt ?? null,
        end_reason: session?.endReason ?? null,
        turns: turns.map((t) => turnView(ctx.store, t)),
      });
    }
    return false;
  } catch (err) {
    sendError(res, fromTrainer(err));
    return true;
  }
}
