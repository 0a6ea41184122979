import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatGenerationRequest, ChatGenerationResult, TokenReport } from '../engine/index.js';
import {
  ChatCompletionRequestSchema,
  type ChatCompletion,
  type ChatCompletionChunk,
  type FinishReason,
  type Usage,
} from '../protocol/openai.js';
import type { TurnStore } from '../store/turnStore.js';
import { ApiError } from './apiError.js';
import { readJsonBody, sendError, sendJson } from './http.js';
import { InferenceError, QueueFullError, type InferenceEngine } from './inferenceEngine.js';
import { readRlMetadata } from './rlMetadata.js';
import { SseWriter } from './sseWriter.js';
import { completionId, lastMessageState, toChatMessages, toLogprobs, toolCallId, toolsFor, toWireToolCalls } from './wireFormat.js';

export interface ChatRouteContext {
  engine: InferenceEngine;
  store: TurnStore;
  servedModelName: string;
  maxBodyBytes: number;
  keepAliveMs: number;
  /** The adapter version new requests are served with (0 = base model). */
  adapterVersion: () => number;
  /** Something the learning loop may act on happened (a turn stored, a next state, a session end). */
  onLearnable?: () => void;
  log: (line: string) => void;
}

function validationError(issues: Array<{ path: PropertyKey[]; message: string }>): ApiError {
  const first = issues[0];
  const where = first.path.map(String).join('.') || 'body';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return new ApiError(400, `invalid request: ${where}: ${first.message}${more}`, 'invalid_request_error', 'invalid_request', where);
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof QueueFullError) {
    return new ApiError(429, err.message, 'rate_limit_error', 'server_busy', null, {
      'retry-after-ms': String(Math.ceil(err.retryAfterMs)),
      'retry-after': String(Math.ceil(err.retryAfterMs / 1000)),
    });
  }
  if (err instanceof InferenceError) {
    const type = err.status >= 500 ? 'server_error' : 'invalid_request_error';
    return new ApiError(err.status, err.message, type, err.code);
  }
  return new ApiError(500, `internal error: ${(err as Error).message}`, 'server_error', 'internal_error');
}

/** POST /v1/chat/completions (and /chat/completions). */
export async function handleChatCompletions(ctx: ChatRouteContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const arrivedAt = Date.now();
  const t0 = performance.now();
  let raw: unknown;
  try {
    raw = await readJsonBody(req, ctx.maxBodyBytes);
  } catch (err) {
    sendError(res, toApiError(err));
    return;
  }
  const parsed = ChatCompletionRequestSchema.safeParse(raw);
  if (!parsed.success) {
    sendError(res, validationError(parsed.error.issues));
    return;
  }
  const body = parsed.data;
  let genRequest: ChatGenerationRequest;
  try {
    if ((body.n ?? 1) !== 1)
      throw new ApiError(
        400,
        `n=${body.n} is not supported; ClawLoop returns one choice per request (n=1)`,
        'invalid_request_error',
        'unsupported_parameter',
        'n',
      );
    const stop = body.stop === null || body.stop === undefined ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop;
    const templateVars: Record<string, unknown> = { ...(body.chat_template_kwargs ?? {}) };
    if (typeof body.enable_thinking === 'boolean') templateVars.enable_thinking = body.enable_thinking;
    genRequest = {
      messages: toChatMessages(body.messages),
      tools: toolsFor(body),
      templateVars,
      maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
      temperature: body.temperature ?? undefined,
      topP: body.top_p ?? undefined,
      topK: body.top_k === null || body.top_k === undefined || body.top_k < 0 ? undefined : body.top_k,
      seed: body.seed ?? undefined,
      stop,
      logprobs: body.logprobs === true,
      topLogprobs: body.top_logprobs ?? 0,
    };
  } catch (err) {
    sendError(res, toApiError(err));
    return;
  }

  // Session bookkeeping happens at arrival: a main request is the next state of the previous main turn.
  const meta = readRlMetadata(req.headers, body);
  let episode = 0;
  if (meta.sessionId) {
    episode = ctx.store.openSession(meta.sessionId, arrivedAt);
    if (
      meta.turnType === 'main' &&
      ctx.store.linkNextState(meta.sessionId, episode, { ...lastMessageState(body.messages), at: arrivedAt })
    ) {
      ctx.onLearnable?.();
    }
  }

  const id = completionId();
  const created = Math.floor(arrivedAt / 1000);
  const model = ctx.servedModelName;
  const adapterVersion = ctx.adapterVersion();
  const headers = { 'x-clawloop-adapter-version': String(adapterVersion), 'x-clawloop-completion-id': id };
  const ac = new AbortController();
  // A client that goes away stops its generation.
  res.on('close', () => {
    if (!res.writableFinished) ac.abort();
  });

  const record = (result: ChatGenerationResult, callIds: string[], queueMs: number | null) => {
    try {
      ctx.store.insertTurn(
        {
          id,
          sessionId: meta.sessionId,
          type: meta.turnType,
          createdAt: arrivedAt,
          completedAt: Date.now(),
          model,
          adapterVersion,
          requestMessages: body.messages,
          tools: body.tools ?? null,
          params: {
            temperature: genRequest.temperature ?? null,
            top_p: genRequest.topP ?? null,
            top_k: genRequest.topK ?? null,
            seed: genRequest.seed ?? null,
            max_tokens: result.maxTokens,
            stop: genRequest.stop ?? null,
            template_vars: genRequest.templateVars,
            tools_in_prompt: genRequest.tools !== undefined,
          },
          promptText: result.promptText,
          promptIds: result.promptIds,
          rawText: result.rawText,
          responseText: result.content,
          reasoningText: result.reasoning,
          toolCalls: result.toolCalls.length
            ? result.toolCalls.map((c, i) => ({ id: callIds[i], name: c.name, arguments: c.arguments }))
            : null,
          responseIds: result.responseIds,
          responseLogprobs: result.logprobs,
          finishReason: result.finishReason,
          promptTokens: result.promptIds.length,
          completionTokens: result.responseIds.length,
          queueMs,
          prefillMs: result.prefillMs,
          decodeMs: result.decodeMs,
          totalMs: performance.now() - t0,
        },
        episode,
      );
      if (meta.sessionId && meta.sessionDone) ctx.store.endSession(meta.sessionId, 'done', Date.now());
      if (meta.turnType === 'main' && meta.sessionId) ctx.onLearnable?.();
    } catch (err) {
      ctx.log(`clawloop: recording turn ${id} failed: ${(err as Error).message}`);
    }
  };

  const usageOf = (r: ChatGenerationResult): Usage => ({
    prompt_tokens: r.promptIds.length,
    completion_tokens: r.responseIds.length,
    total_tokens: r.promptIds.length + r.responseIds.length,
    prompt_tokens_details: { cached_tokens: 0 },
  });
  const finish = (r: ChatGenerationResult): FinishReason => (r.finishReason === 'abort' ? 'stop' : r.finishReason);

  if (!body.stream) {
    try {
      let queueMs: number | null = null;
      const callIds: string[] = [];
      const tokens: TokenReport[] = [];
      const result = await ctx.engine.generate(genRequest, {
        signal: ac.signal,
        onStart: (s) => (queueMs = s.queuedMs),
        onDelta: (d) => {
          tokens.push(...d.tokens);
          for (const e of d.events) if (e.kind === 'toolCall') callIds.push(toolCallId());
        },
      });
      record(result, callIds, queueMs);
      if (result.finishReason === 'abort') return;
      const completion: ChatCompletion = {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: result.content || (result.toolCalls.length ? null : ''),
              ...(result.reasoning ? { reasoning_content: result.reasoning } : {}),
              ...(result.toolCalls.length ? { tool_calls: toWireToolCalls(result.toolCalls, callIds) } : {}),
            },
            finish_reason: finish(result),
            logprobs: genRequest.logprobs ? { content: toLogprobs(tokens) } : null,
          },
        ],
        usage: usageOf(result),
      };
      sendJson(res, 200, completion, headers);
    } catch (err) {
      if (!res.destroyed) sendError(res, toApiError(err));
    }
    return;
  }

  // Streaming: refuse a full queue with a real 429 before committing to a 200 stream. Chunks the
  // engine reports before the stream is open (an engine may call back synchronously) wait in `early`.
  let started: Promise<ChatGenerationResult>;
  let sse: SseWriter | null = null;
  const early: unknown[] = [];
  const emit = (event: unknown) => (sse ? sse.send(event) : early.push(event));
  const callIds: string[] = [];
  let queueMs: number | null = null;
  const chunk = (
    delta: ChatCompletionChunk['choices'][0]['delta'],
    finishReason: FinishReason | null = null,
    tokens?: TokenReport[],
  ): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [
      {
        index: 0,
        delta,
        finish_reason: finishReason,
        ...(tokens && genRequest.logprobs ? { logprobs: { content: toLogprobs(tokens) } } : {}),
      },
    ],
  });
  try {
    started = ctx.engine.generate(genRequest, {
      signal: ac.signal,
      onStart: (s) => {
        queueMs = s.queuedMs;
        emit(chunk({ role: 'assistant', content: '' }));
      },
      onDelta: (d) => {
        let tokens: TokenReport[] | undefined = d.tokens.length ? d.tokens : undefined;
        for (const e of d.events) {
          if (e.kind === 'reasoning') emit(chunk({ reasoning_content: e.text }, null, tokens));
          else if (e.kind === 'content') emit(chunk({ content: e.text }, null, tokens));
          else {
            const index = callIds.length;
            const callId = toolCallId();
            callIds.push(callId);
            // id and name first, then the arguments: calls go out one after another, never interleaved.
            emit(
              chunk(
                { tool_calls: [{ index, id: callId, type: 'function', function: { name: e.call.name, arguments: '' } }] },
                null,
                tokens,
              ),
            );
            emit(chunk({ tool_calls: [{ index, function: { arguments: e.call.arguments } }] }));
          }
          tokens = undefined;
        }
        if (tokens && genRequest.logprobs) emit(chunk({}, null, tokens));
      },
    });
  } catch (err) {
    sendError(res, toApiError(err));
    return;
  }
  sse = new SseWriter(res, headers, ctx.keepAliveMs);
  for (const event of early.splice(0)) sse.send(event);
  try {
    const result = await started;
    record(result, callIds, queueMs);
    if (result.finishReason === 'abort') {
      sse.end();
      return;
    }
    sse.send(chunk({}, finish(result)));
    if (body.stream_options?.include_usage !== false) sse.send({ ...chunk({}), choices: [], usage: usageOf(result) });
    sse.done();
  } catch (err) {
    const e = toApiError(err);
    if (e.status !== 499) sse.fail(e.body());
    else sse.end();
  }
}
