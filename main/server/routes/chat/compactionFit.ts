import type { ChatGenerationRequest, PreparedPrompt } from '../../../engine/index.js';
import { InferenceError } from '../../inferenceEngine.js';
import type { ServerContext } from '../../serverContext.js';

/** How many times the conversation is cut before the refusal stands. */
const TRIES = 4;

/** The marker left where a compaction's input was cut, so the summary can say that something is missing. */
export function cutMarker(chars: number): string {
  return `\n[… ${chars} characters cut by ClawLoop: the conversation was longer than the model reads …]\n`;
}

function isOverflow(err: unknown): boolean {
  return err instanceof InferenceError && err.code === 'context_length_exceeded';
}

/** The prompt tokens a compaction may use: the window less room for the summary (a quarter, or what was asked if less). */
export function compactionPromptBudget(contextLength: number, maxTokens: number | undefined): number {
  return contextLength - Math.min(maxTokens ?? contextLength, Math.floor(contextLength / 4));
}

/** The request with `cut` characters taken out of the middle of its longest message. */
export function cutLongestMessage(req: ChatGenerationRequest, cut: number): ChatGenerationRequest {
  let longest = 0;
  req.messages.forEach((m, i) => {
    if (m.content.length > req.messages[longest].content.length) longest = i;
  });
  const text = req.messages[longest].content;
  const keep = Math.max(0, text.length - cut);
  const head = text.slice(0, Math.ceil(keep / 2));
  const tail = text.slice(text.length - Math.floor(keep / 2));
  const messages = req.messages.map((m, i) => (i === longest ? { ...m, content: head + cutMarker(text.length - keep) + tail } : m));
  return { ...req, messages };
}

/**
 * Prepares an OpenClaw compaction whose conversation is longer than the model reads by cutting the
 * middle of its longest message until it fits. Refusing it would leave the session stuck: OpenClaw
 * keeps the over-long message, every later request overflows, and each compaction fails the same
 * way. A summary of a cut conversation, which says it was cut, lets the session go on.
 */
export async function prepareCompaction(
  ctx: ServerContext,
  req: ChatGenerationRequest,
): Promise<{ req: ChatGenerationRequest; prepared: PreparedPrompt }> {
  const { contextLength, maxTokenChars } = ctx.engine.info;
  const budget = compactionPromptBudget(contextLength, req.maxTokens);
  // More characters than the window times the longest token cannot fit: cut those before counting.
  const chars = req.messages.reduce((n, m) => n + m.content.length, 0);
  let current = chars > budget * maxTokenChars ? cutLongestMessage(req, chars - budget * maxTokenChars) : req;
  for (let i = 0; ; i++) {
    try {
      return { req: current, prepared: await ctx.engine.prepare(current) };
    } catch (err) {
      if (!isOverflow(err) || i === TRIES) throw err;
      const tokens = Number(/resulted in (\d+) tokens/.exec((err as Error).message)?.[1] ?? NaN);
      const chars = current.messages.reduce((n, m) => n + m.content.length, 0);
      const over = Number.isFinite(tokens) ? tokens - budget : ctx.engine.info.contextLength;
      // Characters per token of this conversation, and a tenth more each try.
      current = cutLongestMessage(current, Math.ceil((over * chars * (1 + 0.1 * (i + 1))) / Math.max(1, tokens || chars)));
    }
  }
}
