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
  /** ClawLoop: which adapter answers: "live" (default), "base" (no adapter) or a checkpoint id such as step-000012 (to compare versions). */
  adapter: z.string().min(1).optional().describe('which adapter answers: "live" (default), "base", or a checkpoint id such as step-000012'),
  /** OpenClaw-RL metadata fallbacks for the X-Session-Id / X-Turn-Type / X-Session-Done headers. */
  session_id: z.string().optional(),
  turn_type: z.string().optional(),
  session_done: Flag.optional(),
});

export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;
export type WireMessage = z.infer<typeof ChatMessageSchema>;
export type WireTool = z.infer<typeof ToolSchema>;

export const WireToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type WireToolCall = z.infer<typeof WireToolCallSchema>;

const TopLogprob = z.object({ token: z.string(), logprob: z.number(), bytes: z.array(z.number().int()).nullable() });
export const TokenLogprobSchema = TopLogprob.extend({ top_logprobs: z.array(TopLogprob) });
export type TokenLogprob = z.infer<typeof TokenLogprobSchema>;

export const UsageSchema = z.object({
  prompt_tokens: z.number().int().min(0),
  completion_tokens: z.number().int().min(0),
  total_tokens: z.number().int().min(0),
  prompt_tokens_details: z.object({ cached_tokens: z.number().int().min(0) }).optional(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().int().min(0) }).optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

export const FinishReasonSchema = z.enum(['stop', 'length', 'tool_calls']);
export type FinishReason = z.infer<typeof FinishReasonSchema>;

const Logprobs = z.object({ content: z.array(TokenLogprobSchema) });

export const ChatCompletionSchema = z.object({
  id: z.string().startsWith('chatcmpl-'),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z
    .array(
      z.object({
        index: z.literal(0),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string().nullable(),
          reasoning_content: z.string().optional(),
          tool_calls: z.array(WireToolCallSchema).optional(),
        }),
        finish_reason: FinishReasonSchema,
        logprobs: Logprobs.nullable(),
      }),
    )
    .length(1),
  usage: UsageSchema,
});
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;

const ToolCallDelta = z.object({
  index: z.number().int().min(0),
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().optional(), arguments: z.string() }),
});

/** One `data:` event of a streamed completion (the last one, with usage, has no choices). */
export const ChatCompletionChunkSchema = z.object({
  id: z.string().startsWith('chatcmpl-'),
  object: z.literal('chat.completion.chunk'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.literal(0),
      delta: z.object({
        role: z.literal('assistant').optional(),
        content: z.string().optional(),
        reasoning_content: z.string().optional(),
        tool_calls: z.array(ToolCallDelta).optional(),
      }),
      finish_reason: FinishReasonSchema.nullable(),
      logprobs: Logprobs.nullable().optional(),
    }),
  ),
  usage: UsageSchema.optional(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;

/** GET /v1/models. */
export const ModelListSchema = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      id: z.string(),
      object: z.literal('model'),
      created: z.number().int(),
      owned_by: z.literal('clawloop'),
      context_length: z.number().int().min(1),
    }),
  ),
});
export type ModelList = z.infer<typeof ModelListSchema>;

/** OpenAI's error envelope: every error ClawLoop answers has this shape. */
export const ApiErrorBodySchema = z.object({
  error: z.object({
    message: z.string().min(1),
    type: z.string(),
    code: z.string().nullable(),
    param: z.string().nullable().optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBodySchema>;
