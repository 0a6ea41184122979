import type { ChatGenerationRequest } from '../../../engine/index.js';
import type { ChatCompletionRequest } from '../../../protocol/openai.js';
import { ApiError } from '../../apiError.js';
import { toChatMessages, toolsFor } from '../../wireFormat.js';

/** A validated chat-completions body as the engine's generation request (400 for what ClawLoop cannot do). */
export function toGenerationRequest(body: ChatCompletionRequest): ChatGenerationRequest {
  if ((body.n ?? 1) !== 1) {
    throw new ApiError(
      400,
      `n=${body.n} is not supported; ClawLoop returns one choice per request (n=1)`,
      'invalid_request_error',
      'unsupported_parameter',
      'n',
    );
  }
  const stop = body.stop === null || body.stop === undefined ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const templateVars: Record<string, unknown> = { ...(body.chat_template_kwargs ?? {}) };
  if (typeof body.enable_thinking === 'boolean') templateVars.enable_thinking = body.enable_thinking;
  return {
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
}
