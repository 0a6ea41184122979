import type { ChatGenerationResult, TokenReport } from '../../../engine/index.js';
import type { GenerateHandlers } from '../../inferenceEngine.js';
import { sendJson } from '../../http.js';
import { readRlMetadata } from '../../rlMetadata.js';
import { RESPONDED, type Handler } from '../../routeTypes.js';
import type { ServerContext } from '../../serverContext.js';
import { completionId, toolCallId } from '../../wireFormat.js';
import { completionOf, type AnswerHead } from './chatAnswer.js';
import { reserveAdapter } from './adapterChoice.js';
import { toGenerationRequest } from './chatRequest.js';
import { fitPrompt } from './promptFit.js';
import { ChunkEmitter, finishStream } from './chatStream.js';
import { openTurn, recordTurn, type CaptureInput } from './turnCapture.js';

type ChatRequest = Parameters<Handler<'chat.completions'>>[1];

/** POST /v1/chat/completions: validate, open the turn, generate (streamed or not), record, answer. */
export const chatCompletions: Handler<'chat.completions'> = async (ctx, r): Promise<typeof RESPONDED> => {
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
  r.log.sessionId = c.meta.sessionId;
  r.log.turnType = c.meta.turnType;
  r.log.turnKind = c.meta.source;
  // Rendered and tokenized before anything is recorded or streamed: a prompt that does not fit is a
  // plain 400 at every size, and no completion id is handed out for it.
  const fitted = await fitPrompt(ctx, c.meta.source, c.gen);
  c.gen = { ...fitted.req, prepared: fitted.prepared };
  r.log.promptTokens = fitted.prepared.ids.length;
  c.reserved = await reserveAdapter(ctx, r.body.adapter);
  if (c.reserved !== undefined) c.adapterVersion = c.reserved;
  r.log.adapterVersion = c.adapterVersion;
  let episode: number;
  try {
    episode = openTurn(ctx, c);
  } catch (err) {
    if (c.reserved !== undefined) ctx.engine.releaseAdapter(c.reserved);
    throw err;
  }
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
  const record = (result: ChatGenerationResult, callIds: string[], queueMs: number | null) => {
    r.log.completionTokens = result.responseIds.length;
    r.log.cachedTokens = result.cachedPromptTokens;
    r.log.finishReason = result.finishReason;
    recordTurn(ctx, c, episode, result, callIds, queueMs);
  };
  const reply: Reply = { ctx, r, c, head, headers, signal: ac.signal, record };
  if (r.body.stream) await streamed(reply);
  else await whole(reply);
  return RESPONDED;
};

/** Everything an answer needs: the request, the turn being captured, the answer's fixed parts, how to record it. */
interface Reply {
  ctx: ServerContext;
  r: ChatRequest;
  c: CaptureInput;
  head: AnswerHead;
  headers: Record<string, string>;
  signal: AbortSignal;
  record: (result: ChatGenerationResult, callIds: string[], queueMs: number | null) => void;
}

/** Starts the generation; a refusal (thrown at once, e.g. a full queue) gives back the adapter version the request held. */
function generate(ctx: ServerContext, c: CaptureInput, handlers: GenerateHandlers): Promise<ChatGenerationResult> {
  try {
    return ctx.engine.generate(c.gen, handlers, c.reserved);
  } catch (err) {
    if (c.reserved !== undefined) ctx.engine.releaseAdapter(c.reserved);
    throw err;
  }
}

async function whole({ ctx, r, c, head, headers, signal, record }: Reply): Promise<void> {
  let queueMs: number | null = null;
  const callIds: string[] = [];
  const tokens: TokenReport[] = [];
  const result = await generate(ctx, c, {
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
async function streamed({ ctx, r, c, head, headers, signal, record }: Reply): Promise<void> {
  const emitter = new ChunkEmitter(head);
  let queueMs: number | null = null;
  const done = generate(ctx, c, {
    signal,
    onStart: (s) => {
      queueMs = s.queuedMs;
      emitter.started();
    },
    onDelta: (d) => emitter.delta(d),
  });
  const sse = emitter.open(r.res, headers, ctx.options.keepAliveMs);
  await finishStream(
    sse,
    head,
    done,
    (result) => record(result, emitter.callIds, queueMs),
    r.body.stream_options?.include_usage !== false,
    (message) => (r.log.error = message),
  );
}
