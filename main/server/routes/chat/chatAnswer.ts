import type { ChatGenerationResult, TokenReport } from '../../../engine/index.js';
import type { ChatCompletion, ChatCompletionChunk, FinishReason, Usage } from '../../../protocol/openai.js';
import { toLogprobs, toWireToolCalls } from '../../wireFormat.js';

/** The fixed parts of every object a completion answers with. */
export interface AnswerHead {
  id: string;
  created: number;
  model: string;
  logprobs: boolean;
}

export const usageOf = (r: ChatGenerationResult): Usage => ({
  prompt_tokens: r.promptIds.length,
  completion_tokens: r.responseIds.length,
  total_tokens: r.promptIds.length + r.responseIds.length,
  prompt_tokens_details: { cached_tokens: r.cachedPromptTokens },
});

/** An aborted generation reports 'stop' (the client went away; nobody reads it). */
export const finishOf = (r: ChatGenerationResult): FinishReason => (r.finishReason === 'abort' ? 'stop' : r.finishReason);

/** The non-streamed answer. */
export function completionOf(h: AnswerHead, r: ChatGenerationResult, callIds: string[], tokens: TokenReport[]): ChatCompletion {
  return {
    id: h.id,
    object: 'chat.completion',
    created: h.created,
    model: h.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: r.content || (r.toolCalls.length ? null : ''),
          ...(r.reasoning ? { reasoning_content: r.reasoning } : {}),
          ...(r.toolCalls.length ? { tool_calls: toWireToolCalls(r.toolCalls, callIds) } : {}),
        },
        finish_reason: finishOf(r),
        logprobs: h.logprobs ? { content: toLogprobs(tokens) } : null,
      },
    ],
    usage: usageOf(r),
  };
}

/** One streamed chunk. */
export function chunkOf(
  h: AnswerHead,
  delta: ChatCompletionChunk['choices'][0]['delta'],
  finishReason: FinishReason | null = null,
  tokens?: TokenReport[],
): ChatCompletionChunk {
  return {
    id: h.id,
    object: 'chat.completion.chunk',
    created: h.created,
    model: h.model,
    choices: [
      {
        index: 0,
        delta,
        finish_reason: finishReason,
        ...(tokens && h.logprobs ? { logprobs: { content: toLogprobs(tokens) } } : {}),
      },
    ],
  };
}
