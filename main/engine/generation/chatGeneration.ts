import type { ChatMessage, ToolSpec } from '../text/chatTemplate.js';
import { ChatOutputParser, type OutputEvent, type ParsedToolCall } from '../text/chatOutputParser.js';
import type { DecodeBatcher } from './decodeBatcher.js';
import type { TextTokenizer } from '../text/tokenizer.js';
import { ContextLengthError, generate, type GeneratedToken } from './generate.js';
import type { LoraAdapter } from '../model/lora.js';
import type { Model } from '../model/model.js';
import type { PrefixCache } from './prefixCache.js';
import { tokenBytes } from '../text/tokenBytes.js';

/** A chat request after validation and normalisation (engine types, no wire format). */
export interface ChatGenerationRequest {
  messages: ChatMessage[];
  /** Tools the model may call; their schemas go into the prompt and `<tool_call>` output is parsed. */
  tools?: ToolSpec[];
  /** Extra chat-template variables (e.g. `enable_thinking`). */
  templateVars?: Record<string, unknown>;
  /** Requested completion budget; clamped to the remaining context. Default: the remaining context. */
  maxTokens?: number;
  /** Sampling; each defaults to generation_config.json, then to temperature 1, top_p 1, top_k off. */
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  stop?: string[];
  /** Return per-token log-probs in OpenAI's shape, with this many alternatives (0–20). */
  logprobs?: boolean;
  topLogprobs?: number;
  /** The prompt as {@link prepareChatPrompt} rendered it for this request; generation then skips rendering. */
  prepared?: PreparedPrompt;
}

/** A chat request's prompt, rendered and tokenized, and the completion budget left in the context. */
export interface PreparedPrompt {
  text: string;
  ids: number[];
  maxTokens: number;
}

/** One generated token as reported to clients asking for log-probs. */
export interface TokenReport {
  id: number;
  logprob: number;
  /** Present when log-probs were requested. */
  token?: string;
  bytes?: number[] | null;
  top?: Array<{ id: number; token: string; bytes: number[] | null; logprob: number }>;
}

export interface ChatDelta {
  events: OutputEvent[];
  tokens: TokenReport[];
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'abort';

export interface ChatGenerationResult {
  /** The rendered prompt text and its exact token ids (what the model saw). */
  promptText: string;
  promptIds: number[];
  /** Every sampled token id (including a final stop token) and its log-prob under the model. */
  responseIds: number[];
  logprobs: number[];
  /** The raw generated text, then its parts. */
  rawText: string;
  reasoning: string;
  content: string;
  toolCalls: ParsedToolCall[];
  finishReason: ChatFinishReason;
  maxTokens: number;
  /** Prompt tokens whose keys and values came from the prefix cache, not computed (0 without one). */
  cachedPromptTokens: number;
  /** From the start of generation to the first token's logits (time to first token, less queueing and sampling). */
  prefillMs: number;
  decodeMs: number;
}

/**
 * A request the model cannot serve; `status` is the HTTP status to answer with, and a
 * `context_length_exceeded` refusal carries the prompt's tokens as counted.
 */
export class ChatRequestError extends Error {
  override name = 'ChatRequestError';
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly promptTokens?: number,
  ) {
    super(message);
  }
}

export interface ChatGenerationHooks {
  signal?: AbortSignal;
  /** LoRA adapter to generate with (null: the base model). */
  adapter?: LoraAdapter | null;
  /** Decode together with the other generations running on this batcher (continuous batching). */
  batcher?: DecodeBatcher;
  /** Reuse cached keys and values of the prompt's longest known prefix (see PrefixCache). Default: none. */
  prefixCache?: PrefixCache;
  /** The adapter's version, for the prefix cache: another version never reuses its entries. Default 0. */
  adapterVersion?: number;
  /** Called once the prompt is tokenized and fits. */
  onStart?: (info: { promptTokens: number; maxTokens: number }) => void;
  /** Called as text and tokens become final. */
  onDelta?: (delta: ChatDelta) => void;
}

/** The tools a request offers the model, or undefined when it offers none. */
function requestTools(req: ChatGenerationRequest): ToolSpec[] | undefined {
  return req.tools && req.tools.length ? req.tools : undefined;
}

/**
 * Renders and tokenizes a chat request's prompt and checks that it leaves room to answer: a
 * prompt that does not fit is a 400 `context_length_exceeded` (OpenAI's wording, on which OpenClaw
 * compacts). The server calls this before it opens a stream or records anything.
 */
export function prepareChatPrompt(model: Model, req: ChatGenerationRequest): PreparedPrompt {
  const tools = requestTools(req);
  let rendered: { text: string; ids: number[] };
  try {
    rendered = model.encodeChat({ messages: req.messages, tools, addGenerationPrompt: true, extra: req.templateVars });
  } catch (err) {
    throw new ChatRequestError((err as Error).message, 400, 'invalid_request');
  }
  const limit = model.config.maxPositions;
  const promptTokens = rendered.ids.length;
  if (promptTokens >= limit) {
    throw new ChatRequestError(
      `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${promptTokens} tokens. ` +
        'Please reduce the length of the messages.',
      400,
      'context_length_exceeded',
      promptTokens,
    );
  }
  return { ...rendered, maxTokens: Math.min(req.maxTokens ?? limit, limit - promptTokens) };
}

/** A generated token as clients asking for log-probs see it: its text and bytes, and those of the alternatives. */
function tokenReport(tokenizer: TextTokenizer, t: GeneratedToken, withText: boolean): TokenReport {
  const report: TokenReport = { id: t.id, logprob: t.logprob };
  if (!withText) return report;
  report.token = tokenizer.decode([t.id]);
  report.bytes = tokenBytes(tokenizer, t.id);
  report.top = (t.top ?? []).map((a) => ({
    id: a.id,
    token: tokenizer.decode([a.id]),
    bytes: tokenBytes(tokenizer, a.id),
    logprob: a.logprob,
  }));
  return report;
}

/**
 * Renders a conversation with the model's chat template, generates the assistant's reply and
 * splits it into reasoning, answer and tool calls.
 */
export async function runChatGeneration(
  model: Model,
  req: ChatGenerationRequest,
  hooks: ChatGenerationHooks = {},
): Promise<ChatGenerationResult> {
  const tools = requestTools(req);
  const prompt = req.prepared ?? prepareChatPrompt(model, req);
  const { maxTokens } = prompt;
  hooks.onStart?.({ promptTokens: prompt.ids.length, maxTokens });
  const parser = new ChatOutputParser({ toolCalls: tools !== undefined, startInReasoning: /<think>\s*$/.test(prompt.text) });
  const g = model.generation;
  const wantLogprobs = req.logprobs === true;
  const it = generate(model.lm, model.tokenizer, prompt.ids, {
    maxNewTokens: maxTokens,
    temperature: req.temperature ?? g.temperature ?? 1,
    topP: req.topP ?? g.topP ?? 1,
    topK: req.topK ?? g.topK ?? 0,
    seed: req.seed,
    stopTokenIds: g.eosTokenIds,
    stopStrings: req.stop,
    signal: hooks.signal,
    adapter: hooks.adapter ?? null,
    batcher: hooks.batcher,
    prefixCache: hooks.prefixCache,
    adapterVersion: hooks.adapterVersion,
    topLogprobs: wantLogprobs ? (req.topLogprobs ?? 0) : 0,
  });
  let r = await it.next().catch((err) => {
    if (err instanceof ContextLengthError) throw new ChatRequestError(err.message, 400, 'context_length_exceeded', err.promptTokens);
    throw err;
  });
  for (; !r.done; r = await it.next()) {
    // The parser is fed even without a listener: `content` and `reasoning` come from it.
    const events = parser.push(r.value.text);
    hooks.onDelta?.({ events, tokens: [tokenReport(model.tokenizer, r.value, wantLogprobs)] });
  }
  const res = r.value;
  const tail = parser.finish();
  if (tail.length) hooks.onDelta?.({ events: tail, tokens: [] });
  const finishReason: ChatFinishReason =
    res.finishReason === 'abort' ? 'abort' : parser.hasToolCalls ? 'tool_calls' : res.finishReason === 'length' ? 'length' : 'stop';
  return {
    promptText: prompt.text,
    promptIds: prompt.ids,
    responseIds: res.tokens,
    logprobs: res.logprobs,
    rawText: res.text,
    reasoning: parser.reasoning,
    content: parser.content,
    toolCalls: parser.toolCalls,
    finishReason,
    maxTokens,
    cachedPromptTokens: res.cachedPromptTokens,
    prefillMs: res.prefillMs,
    decodeMs: res.decodeMs,
  };
}
