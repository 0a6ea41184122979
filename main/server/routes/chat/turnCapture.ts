import type { ChatGenerationRequest, ChatGenerationResult } from '../../../engine/index.js';
import type { ChatCompletionRequest } from '../../../protocol/openai.js';
import { ApiError } from '../../apiError.js';
import type { TurnRecord } from '../../../store/turnStore.js';
import type { RlMetadata } from '../../rlMetadata.js';
import type { ServerContext } from '../../serverContext.js';
import { isDiskFull, storageError } from '../../storageError.js';
import { openClawNextState } from '../../openclawCalls.js';
import { lastMessageState } from '../../wireFormat.js';

/** What a request contributes to the record before and after it is answered. */
export interface CaptureInput {
  id: string;
  meta: RlMetadata;
  arrivedAt: number;
  t0: number;
  body: ChatCompletionRequest;
  gen: ChatGenerationRequest;
  /** The adapter version that answers. */
  adapterVersion: number;
  /** Set when the request asked for a version other than the live one (`adapter`), held for it. */
  reserved?: number;
}

/**
 * Session bookkeeping at arrival: opens the session and, for a main request, makes its last
 * message the next state of the session's previous main turn. Returns the session episode.
 * A full disk is a 507 before any generation starts.
 */
export function openTurn(ctx: ServerContext, c: CaptureInput): number {
  if (!c.meta.sessionId) return 0;
  try {
    const episode = ctx.store.turns.openSession(c.meta.sessionId, c.arrivedAt);
    if (c.meta.turnType === 'main') {
      const state = { ...nextStateOf(c), at: c.arrivedAt };
      const linked = ctx.store.turns.linkNextState(c.meta.sessionId, episode, state);
      if (linked) {
        ctx.events.publish({ event: 'feedback.received', data: { turn_id: linked, kind: 'next_state', text: state.text } });
        ctx.wakeTrainer();
      }
    }
    return episode;
  } catch (err) {
    throw storageError(err, ctx.dataDir);
  }
}

/** The previous main turn's next state: the request's last message (for OpenClaw, its last one that is not internal context). */
function nextStateOf(c: CaptureInput): { role: string; text: string } {
  const fromOpenClaw = c.meta.source.startsWith('openclaw-') ? openClawNextState(c.body.messages) : null;
  return fromOpenClaw ?? lastMessageState(c.body.messages);
}

/**
 * Records a finished generation. A turn answered is a turn recorded: when the write fails the
 * caller answers with this error instead of a completion whose id was never stored.
 */
export function recordTurn(
  ctx: ServerContext,
  c: CaptureInput,
  episode: number,
  result: ChatGenerationResult,
  callIds: string[],
  queueMs: number | null,
): void {
  try {
    ctx.store.turns.insertTurn(turnRecord(ctx, c, result, callIds, queueMs), episode);
    if (c.meta.sessionId && c.meta.sessionDone) ctx.store.turns.endSession(c.meta.sessionId, 'done', Date.now());
  } catch (err) {
    ctx.log(`clawloop: recording turn ${c.id} failed: ${(err as Error).message}`);
    if (isDiskFull(err)) throw storageError(err, ctx.dataDir);
    throw new ApiError(
      500,
      `the answer was generated but could not be recorded: ${(err as Error).message}`,
      'server_error',
      'record_failed',
    );
  }
  publishCaptured(ctx, c, result);
  if (c.meta.turnType === 'main' && c.meta.sessionId) ctx.wakeTrainer();
}

/** The row of a finished generation: what was asked, the exact tokens, and how long it took. */
function turnRecord(
  ctx: ServerContext,
  c: CaptureInput,
  result: ChatGenerationResult,
  callIds: string[],
  queueMs: number | null,
): TurnRecord {
  return {
    id: c.id,
    sessionId: c.meta.sessionId,
    type: c.meta.turnType,
    createdAt: c.arrivedAt,
    completedAt: Date.now(),
    model: ctx.options.servedModelName,
    adapterVersion: c.adapterVersion,
    requestMessages: c.body.messages,
    tools: c.body.tools ?? null,
    params: {
      temperature: c.gen.temperature ?? null,
      top_p: c.gen.topP ?? null,
      top_k: c.gen.topK ?? null,
      seed: c.gen.seed ?? null,
      max_tokens: result.maxTokens,
      stop: c.gen.stop ?? null,
      template_vars: c.gen.templateVars,
      tools_in_prompt: c.gen.tools !== undefined,
    },
    promptText: result.promptText,
    promptIds: result.promptIds,
    rawText: result.rawText,
    responseText: result.content,
    reasoningText: result.reasoning,
    toolCalls: result.toolCalls.length
      ? result.toolCalls.map((call, i) => ({ id: callIds[i], name: call.name, arguments: call.arguments }))
      : null,
    responseIds: result.responseIds,
    responseLogprobs: result.logprobs,
    finishReason: result.finishReason,
    promptTokens: result.promptIds.length,
    completionTokens: result.responseIds.length,
    queueMs,
    prefillMs: result.prefillMs,
    decodeMs: result.decodeMs,
    totalMs: performance.now() - c.t0,
  };
}

function publishCaptured(ctx: ServerContext, c: CaptureInput, result: ChatGenerationResult): void {
  ctx.events.publish({
    event: 'turn.captured',
    data: {
      session_id: c.meta.sessionId,
      turn_id: c.id,
      turn_type: c.meta.turnType,
      adapter_version: c.adapterVersion,
      prompt_tokens: result.promptIds.length,
      completion_tokens: result.responseIds.length,
      finish_reason: result.finishReason,
    },
  });
}
