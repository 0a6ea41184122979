import type { ChatGenerationRequest, PreparedPrompt } from '../../../engine/index.js';
import { ApiError } from '../../apiError.js';
import { InferenceError } from '../../inferenceEngine.js';
import type { TurnSource } from '../../rlMetadata.js';
import type { ServerContext } from '../../serverContext.js';
import { checkPromptFits } from './chatRequest.js';

/** A request and its prompt, rendered and tokenized by the inference worker. */
export interface FittedPrompt {
  req: ChatGenerationRequest;
  prepared: PreparedPrompt;
}

/** How many times a message is cut before the refusal stands. */
const TRIES = 4;

/** The marker left where a message was cut, so the model (and a summary of it) can say that something is missing. */
export function cutMarker(chars: number): string {
  return `\n[… ${chars} characters cut by ClawLoop: the conversation was longer than the model reads …]\n`;
}

function isOverflow(err: unknown): err is InferenceError {
  return err instanceof InferenceError && err.code === 'context_length_exceeded';
}

/** The prompt tokens an overflow refusal counted; NaN when the engine did not say. */
function overflowTokens(err: InferenceError): number {
  return err.promptTokens ?? NaN;
}

/** The prompt tokens a cut request may use: the window less room for the answer (a quarter, or what was asked if less). */
export function compactionPromptBudget(contextLength: number, maxTokens: number | undefined): number {
  return contextLength - Math.min(maxTokens ?? contextLength, Math.floor(contextLength / 4));
}

/** The index of the longest message among `candidates`. */
function longestOf(req: ChatGenerationRequest, candidates: number[]): number {
  return candidates.reduce((best, i) => (req.messages[i].content.length > req.messages[best].content.length ? i : best), candidates[0]);
}

/** The request with `cut` characters taken out of the middle of message `index`. */
export function cutMessage(req: ChatGenerationRequest, index: number, cut: number): ChatGenerationRequest {
  const text = req.messages[index].content;
  const keep = Math.max(0, text.length - cut);
  const head = text.slice(0, Math.ceil(keep / 2));
  const tail = text.slice(text.length - Math.floor(keep / 2));
  const messages = req.messages.map((m, i) => (i === index ? { ...m, content: head + cutMarker(text.length - keep) + tail } : m));
  return { ...req, messages };
}

/** The request with `cut` characters taken out of the middle of its longest message. */
export function cutLongestMessage(req: ChatGenerationRequest, cut: number): ChatGenerationRequest {
  return cutMessage(
    req,
    longestOf(
      req,
      req.messages.map((_, i) => i),
    ),
    cut,
  );
}

const charsOf = (req: ChatGenerationRequest) => req.messages.reduce((n, m) => n + m.content.length, 0);

/**
 * Cuts the middle of message `index` until the prompt fits `budget` tokens: first by characters
 * (more than the budget times the longest token cannot fit), then from the counts the refusals give,
 * a tenth more each try. Throws the last refusal when it still does not fit.
 */
async function cutToFit(ctx: ServerContext, req: ChatGenerationRequest, index: number, budget: number): Promise<FittedPrompt> {
  const { maxTokenChars } = ctx.engine.info;
  const chars = charsOf(req);
  let current = chars > budget * maxTokenChars ? cutMessage(req, index, chars - budget * maxTokenChars) : req;
  for (let i = 0; ; i++) {
    try {
      return { req: current, prepared: await ctx.engine.prepare(current) };
    } catch (err) {
      if (!isOverflow(err) || i === TRIES) throw err;
      const tokens = overflowTokens(err);
      const over = Number.isFinite(tokens) ? tokens - budget : ctx.engine.info.contextLength;
      // Characters per token of this conversation, and a tenth more each try.
      const perToken = charsOf(current) / Math.max(1, tokens || charsOf(current));
      current = cutMessage(current, index, Math.ceil(over * perToken * (1 + 0.1 * (i + 1))));
    }
  }
}

/** The prompt as the request gives it, refused when it cannot fit (a cheap character bound first, then the exact count). */
export async function prepareAsIs(ctx: ServerContext, req: ChatGenerationRequest): Promise<FittedPrompt> {
  checkPromptFits(req, ctx.engine.info);
  return { req, prepared: await ctx.engine.prepare(req) };
}

/**
 * An OpenClaw compaction whose conversation is longer than the model reads: its longest message is
 * cut in the middle until it fits. Refusing it would leave the session stuck: OpenClaw keeps the
 * over-long message, every later request overflows, and each compaction fails the same way. A
 * summary of a cut conversation, which says it was cut, lets the session go on.
 */
export async function prepareCompaction(ctx: ServerContext, req: ChatGenerationRequest): Promise<FittedPrompt> {
  const budget = compactionPromptBudget(ctx.engine.info.contextLength, req.maxTokens);
  return cutToFit(
    ctx,
    req,
    longestOf(
      req,
      req.messages.map((_, i) => i),
    ),
    budget,
  );
}

/**
 * An OpenClaw agent turn (or tool continuation) that overflows. Usually it is refused, and OpenClaw
 * compacts its history and asks again. But when an earlier message alone takes more than half the
 * window (a message refused as too long when it was sent, which OpenClaw keeps in the session),
 * OpenClaw's compaction has nothing to work on ("Nothing to compact (session too small)") and every
 * later turn would be refused the same way: that message is cut in the middle, with a marker, so the
 * session goes on. The newest message is never cut: the person who sent it is told it is too long.
 */
export async function prepareAgentTurn(ctx: ServerContext, req: ChatGenerationRequest): Promise<FittedPrompt> {
  const { contextLength, maxTokenChars } = ctx.engine.info;
  const earlier = req.messages.map((_, i) => i).filter((i) => i < req.messages.length - 1 && req.messages[i].role !== 'system');
  const index = earlier.length ? longestOf(req, earlier) : -1;
  try {
    return await prepareAsIs(ctx, req);
  } catch (err) {
    const charBound = err instanceof ApiError && err.code === 'context_length_exceeded';
    if (index < 0 || !(isOverflow(err) || charBound)) throw err;
    const share = req.messages[index].content.length / Math.max(1, charsOf(req));
    const tokens = isOverflow(err) ? overflowTokens(err) : charsOf(req) / maxTokenChars;
    // Not an oversized message: the refusal stands, and OpenClaw compacts.
    if (!(share * tokens > contextLength / 2)) throw err;
    return cutToFit(ctx, req, index, compactionPromptBudget(contextLength, req.maxTokens));
  }
}

/** The prompt of a chat request, fitted to the window as its kind of call allows. */
export function fitPrompt(ctx: ServerContext, source: TurnSource, req: ChatGenerationRequest): Promise<FittedPrompt> {
  if (source === 'openclaw-compaction') return prepareCompaction(ctx, req);
  if (source === 'openclaw-agent-turn' || source === 'openclaw-tool-continuation') return prepareAgentTurn(ctx, req);
  return prepareAsIs(ctx, req);
}
