import type { ChatGenerationResult, TokenReport } from '../../../engine/index.js';
import { ApiError } from '../../apiError.js';
import { sendJson } from '../../http.js';
import { readRlMetadata } from '../../rlMetadata.js';
import { RESPONDED, type Handler } from '../../routeTypes.js';
import type { ServerContext } from '../../serverContext.js';
import { completionId, toolCallId } from '../../wireFormat.js';
import { completionOf, type AnswerHead } from './chatAnswer.js';
import { checkPromptFits, toGenerationRequest } from './chatRequest.js';
import { ChunkEmitter, finishStream } from './chatStream.js';
import { openTurn, recordTurn, type CaptureInput } from './turnCapture.js';

type ChatRequest = Parameters<Handler<'chat.completions'>>[1];

/** POST /v1/chat/completions: validate, open the turn, generate (streamed or not), record, answer. */
export const chatCompletions: Handler<'chat.completions'> = async (ctx, r): Promise<typeof RESPONDED> => {
  if (ctx.closing()) throw new ApiError(503, 'the server is shutting down', 'server_error', 'shutting_down');
  const arrivedAt = Date.now();
  const c: CaptureInput = {
    id: completionId(),
    meta: readRlMetadata(r.req.headers, r.body),
    arrivedAt,
    t0: performance.now(),
    body: r.body,
    gen: toGenerationRequest(r.body),
    adapterVersion: ctx.engine.adapterVersion,
  };
  checkPromptFits(c.gen, ctx.engine.info);
  const episode = openTurn(ctx, c);
  const head: AnswerHead = {
    id: c.id,
    created: Math.floor(arrivedAt / 1000),
    model: ctx.options.servedModelName,
    logprobs: c.gen.logprobs === true,
  };
  const headers = { 'x-clawloop-adapter-version': String(c.adapterVersion), 'x-clawloop-completion-id': c.id };
  const ac = new AbortController();
  // A client that goes away stops its generation.
  r.res.on('close', () => {
    if (!r.res.writableFinished) ac.abort();
  });
  const record = (result: ChatGenerationResult, callIds: string[], queueMs: number | null) =>
    recordTurn(ctx, c, episode, result, callIds, queueMs);
  if (r.body.stream) await streamed(ctx, r, c, head, headers, ac.signal, record);
  else await whole(ctx, r, c, head, headers, ac.signal, record);
  return RESPONDED;
};

type RecordFn = (result: ChatGenerationResult, callIds: string[], queueMs: number | null) => void;

async function whole(
  ctx: ServerContext,
  r: ChatRequest,
  c: CaptureInput,
  head: AnswerHead,
  headers: Record<string, string>,
  signal: AbortSignal,
  record: RecordFn,
): Promise<void> {
  let queueMs: number | null = null;
  const callIds: string[] = [];
  const tokens: TokenReport[] = [];
  const result = await ctx.engine.generate(c.gen, {
    signal,
    onStart: (s) => (queueMs = s.queuedMs),
    onDelta: (d) => {
      tokens.push(...d.tokens);
      for (const e of d.events) if (e.kind === 'toolCall') callIds.push(toolCallId());
    },
  });
  record(result, callIds, queueMs);
  if (result.finishReason === 'abort' || r.res.destroyed) return;
  sendJson(r.res, 200, completionOf(head, result, callIds, tokens), headers);
}

/** Streaming: a full queue is refused with a real 429 (thrown synchronously) before the 200 stream opens. */
async function streamed(
  ctx: ServerContext,
  r: ChatRequest,
  c: CaptureInput,
  head: AnswerHead,
  headers: Record<string, string>,
  signal: AbortSignal,
  record: RecordFn,
): Promise<void> {
  const emitter = new ChunkEmitter(head);
  let queueMs: number | null = null;
  const done = ctx.engine.generate(c.gen, {
    signal,
    onStart: (s) => {
      queueMs = s.queuedMs;
      emitter.started();
    },
    onDelta: (d) => emitter.delta(d),
  });
  const sse = emitter.open(r.res, headers, ctx.options.keepAliveMs);
  await finishStream(sse, head, done, (result) => record(result, emitter.callIds, queueMs), r.body.stream_options?.include_usage !== false);
}
