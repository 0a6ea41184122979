/**
 * The OpenAI chat-completions wire format as ClawLoop accepts and emits it (see
 * docs/openclaw.md). Pure types and zod schemas: no Node imports, so the UI may use it.
 */
import { z } from 'zod';

const TextPart = z.object({ type: z.literal('text'), text: z.string() });
const OtherPart = z.looseObject({ type: z.string() });
const Content = z.union([z.string(), z.array(z.union([TextPart, OtherPart])), z.null()]);

export const ToolCallSchema = z.object({
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.object({
    name: z.string().min(1),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  }),
});

export const ChatMessageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: Content.optional(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).nullable().optional(),
  tool_call_id: z.string().optional(),
  reasoning_content: z.string().nullable().optional(),
  /** Alternative field names some clients replay reasoning in. */
  reasoning: z.string().nullable().optional(),
  reasoning_text: z.string().nullable().optional(),
});

export const ToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

const Flag = z.union([z.boolean(), z.string(), z.number()]);

export const ChatCompletionRequestSchema = z.object({
  model: z.string().optional(),
  messages: z.array(ChatMessageSchema).min(1, 'messages must hold at least one message'),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullable().optional() }).nullable().optional(),
  max_tokens: z.number().int().min(1).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().gt(0).max(1).nullable().optional(),
  /** Not OpenAI: vLLM's extension; 0 or -1 turn it off. */
  top_k: z.number().int().min(-1).nullable().optional(),
  seed: z.number().int().nullable().optional(),
  stop: z
    .union([z.string(), z.array(z.string()).max(16)])
    .nullable()
    .optional(),
  n: z.number().int().nullable().optional(),
  tools: z.array(ToolSchema).nullable().optional(),
  tool_choice: z
    .union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) })])
    .nullable()
    .optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  reasoning_effort: z.string().nullable().optional(),
  enable_thinking: z.boolean().nullable().optional(),
  /** vLLM's extension: extra variables for the chat template. */
  chat_template_kwargs: z.record(z.string(), z.unknown()).nullable().optional(),
  /** OpenClaw-RL metadata fallbacks for the X-Session-Id / X-Turn-Type / X-Session-Done headers. */
  session_id: z.string().optional(),
  turn_type: z.string().optional(),
  session_done: Flag.optional(),
});

export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;
export type WireMessage = z.infer<typeof ChatMessageSchema>;
export type WireTool = z.infer<typeof ToolSchema>;

export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] | null }>;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    message: { role: 'assistant'; content: string | null; reasoning_content?: string; tool_calls?: WireToolCall[] };
    finish_reason: FinishReason;
    logprobs: { content: TokenLogprob[] } | null;
  }>;
  usage: Usage;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    delta: {
      role?: 'assistant';
      content?: string;
      reasoning_content?: string;
      tool_calls?: Array<{ index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } }>;
    };
    finish_reason: FinishReason | null;
    logprobs?: { content: TokenLogprob[] } | null;
  }>;
  usage?: Usage;
}

/** OpenAI's error envelope. */
export interface ApiErrorBody {
  error: { message: string; type: string; code: string | null; param?: string | null };
}
