/**
 * How much of the model's context the next request would fill: the tokens the core counted for the
 * last recorded answer (its prompt and its answer), plus an estimate for what came after it and the
 * draft. The estimate errs high (a token per 3 characters, a few per message for the chat template)
 * so that the warning comes before the core refuses, not after.
 */
import type { TurnView } from '../api/contract.js';
import type { ChatItem } from './thread.js';

/** Characters per token in the estimate: English text runs 3.5–4.5 with common tokenizers; 3 errs high. */
const CHARS_PER_TOKEN = 3;
/** Tokens a message adds for its role markers in a chat template. */
const TOKENS_PER_MESSAGE = 6;
/** From this share of the context on, the meter warns that little room is left for the answer. */
export const NEAR_FULL = 0.85;

export interface ContextUse {
  /** Tokens the next request would send (counted up to the last recorded answer, estimated after it). */
  tokens: number;
  contextLength: number;
  /** 'over': the request does not fit; 'near': it fits, with little room left for the answer. */
  level: 'ok' | 'near' | 'over';
}

const estimate = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE;

export function contextUse(items: ChatItem[], turns: Record<string, TurnView>, draft: string, contextLength: number): ContextUse {
  let tokens = 0;
  let from = 0;
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    const turn = it.kind === 'answer' && !it.side && it.turnId ? turns[it.turnId] : undefined;
    if (turn) {
      tokens = turn.prompt_tokens + turn.completion_tokens;
      from = i + 1;
      break;
    }
  }
  for (const it of items.slice(from)) {
    if (it.kind === 'user') tokens += estimate(it.content);
    else if (!it.side && !it.error && it.content) tokens += estimate(it.content);
  }
  if (draft.trim()) tokens += estimate(draft);
  const level = tokens > contextLength ? 'over' : tokens >= NEAR_FULL * contextLength ? 'near' : 'ok';
  return { tokens, contextLength, level };
}
