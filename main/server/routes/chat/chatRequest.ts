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

/**
 * Refuses, before the worker spends any time on it, a prompt that cannot fit: one token stands for
 * at most `maxTokenChars` characters, so more characters than context × that need more tokens than
 * the model reads. (The worker's exact check, after tokenizing, still catches the rest.)
 */
export function checkPromptFits(gen: ChatGenerationRequest, info: { contextLength: number; maxTokenChars: number }): void {
  // Extra template variables count too: templates may print them (Llama's date_string).
  let chars = (gen.tools ? JSON.stringify(gen.tools).length : 0) + (gen.templateVars ? JSON.stringify(gen.templateVars).length : 0);
  for (const m of gen.messages) {
    chars += m.content.length + (m.reasoning_content?.length ?? 0) + (m.tool_calls ? JSON.stringify(m.tool_calls).length : 0);
  }
  const atLeast = Math.ceil(chars / info.maxTokenChars);
  if (atLeast <= info.contextLength) return;
  throw new ApiError(
    400,
    `This model's maximum context length is ${info.contextLength} tokens. However, your messages resulted in at least ${atLeast} tokens (${chars} characters). Please reduce the length of the messages.`,
    'invalid_request_error',
    'context_length_exceeded',
    'messages',
  );
}
