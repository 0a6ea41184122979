/**
 * Recorded conversations as the API serves them: sessions, turns, what each turn taught (its
 * receipt), and feedback. Pure zod schemas and inferred types: the UI imports this module.
 */
import { z } from 'zod';
import { ChatMessageSchema } from './openai.js';

/**
 * Characters a session id or title may not hold: control characters (NUL, newlines, C1) and the
 * invisible formatting ones that reorder or hide text (bidi embeddings, overrides and isolates, the
 * Arabic letter mark, zero-width characters, word joiner and invisible operators, the Mongolian vowel
 * separator, Hangul fillers, interlinear annotation marks and the tag characters U+E0000–U+E007F, which
 * no font draws and which can smuggle a hidden ASCII message): "‮txt.exe" shows as "exe.txt" in a list.
 * Node reads header values as Latin-1; X-Session-Id is decoded as UTF-8 first (rlMetadata.ts), so an
 * accented id does not arrive as C1 characters.
 */
export const UNSAFE_TEXT =
  /[\u0000-\u001f\u007f-\u009f\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}]/u;
const UNSAFE_ALL = new RegExp(UNSAFE_TEXT.source, 'gu');

/**
 * Text as a screen may show it, when people other than the reader wrote it (titles, previews,
 * hints): control characters become spaces, and the invisible ones that reorder or hide text (an
 * RTL override turns "invoice ‮gpj.exe" into "invoice exe.jpg") are dropped.
 */
export function shownText(text: string): string {
  return text.replace(UNSAFE_ALL, (c) => (c <= '\u009f' ? ' ' : ''));
}
/** The longest session id accepted (X-Session-Id or `session_id`). */
export const MAX_SESSION_ID = 256;

/** Why a session id cannot be stored (too long, or text that hides or reorders characters), or null when it can. */
export function sessionIdProblem(id: string): string | null {
  if (id.length > MAX_SESSION_ID) return `is ${id.length} characters long; at most ${MAX_SESSION_ID} are accepted`;
  return UNSAFE_TEXT.test(id) ? 'holds control characters or invisible bidi/formatting characters' : null;
}

export const FeedbackRequestSchema = z
  .object({
    completion_id: z.string().min(1).describe('the id of the answer, as returned by /v1/chat/completions (chatcmpl-…)'),
    rating: z.enum(['up', 'down']).nullable().optional().describe('"up", "down", or null to clear; left out keeps the current rating'),
    hint: z.string().max(4000).nullable().optional().describe('what would have made the answer better; null clears it'),
    reject_judge_hint: z
      .boolean()
      .optional()
      .describe(
        "true: the hint judge's hint for this answer does not train (it trains on its rating alone); false: it may again; left out keeps the current choice",
      ),
  })
  .strict();
export type FeedbackRequest = z.infer<typeof FeedbackRequestSchema>;

export const FeedbackResponseSchema = z.object({
  completion_id: z.string(),
  rating: z.enum(['up', 'down']).nullable(),
  hint: z.string().nullable(),
  /** The judge's hint for this answer is rejected (absent from cores before it: false). */
  reject_judge_hint: z.boolean().optional(),
  updated_at: z.number().int(),
  session_id: z.string().nullable(),
  turn_type: z.enum(['main', 'side']),
  /** Whether the turn can become training data (a main turn of a session that finished normally). */
  trainable: z.boolean(),
});
export type FeedbackResponse = z.infer<typeof FeedbackResponseSchema>;

/**
 * Where a turn stands in the learning loop, as one stage:
 * - `none`: nothing to learn from yet (no feedback, no next state);
 * - `queued`: it has a signal and waits for the judge;
 * - `judged`: samples were built and wait for a training step;
 * - `trained`: a step trained on it, but the live adapter does not contain that step (it was held back,
 *   or the user rolled back to an earlier version);
 * - `live`: the live adapter (`version`) is that step's checkpoint or trained on from it;
 * - `not_trained`: it will not be trained on, and `reason` says why.
 */
export const RECEIPT_STAGES = ['none', 'queued', 'judged', 'trained', 'live', 'not_trained'] as const;
export type ReceiptStage = (typeof RECEIPT_STAGES)[number];

export const ReceiptSchema = z.object({
  stage: z.enum(RECEIPT_STAGES),
  /** The reward the turn trains with (+1/−1 from 👍/👎 or the judge; 0 when the judge was unsure), once judged. */
  score: z.number().nullable(),
  /** The hint the turn trains with (typed or extracted by the hint judge), once judged. */
  hint: z.string().nullable(),
  /** Who wrote `hint`: the user ('feedback') or the hint judge ('judge'); null without a hint. */
  hint_source: z.enum(['feedback', 'judge']).nullable(),
  step: z.number().int().nullable(),
  checkpoint_id: z.string().nullable(),
  /** While live: the adapter version serving what this turn taught (it moves on with every later version). */
  version: z.number().int().nullable(),
  /** Once trained: the first adapter version that served what this turn taught (it stays); null until one did. */
  first_version: z.number().int().nullable().optional(),
  reason: z.string().nullable(),
  /**
   * While a 👍/👎 without a hint waits for one (`feedback_wait_s`): the time (ms) until which a hint
   * joins the rating as one piece of feedback. While a judge's hint waits for review: the time until
   * which it can be rejected before a step may take it. Null otherwise.
   */
  hint_until: z.number().int().nullable(),
  /** Whether the feedback can still change: false once a training step took the answer. */
  feedback_open: z.boolean(),
});
export type Receipt = z.infer<typeof ReceiptSchema>;

const JudgementView = z.object({
  kind: z.enum(['prm', 'hint']),
  judge: z.string(),
  score: z.number().nullable(),
  hint: z.string().nullable(),
  votes: z.array(z.object({ raw: z.string(), score: z.number().nullable(), hint: z.string().nullable().optional() })),
  created_at: z.number().int(),
});

const SampleView = z.object({
  kind: z.enum(['rl', 'opd', 'both']),
  reward: z.number().nullable(),
  reward_source: z.enum(['feedback', 'prm', 'at_least_one']).nullable(),
  hint: z.string().nullable(),
  hint_source: z.enum(['feedback', 'judge']).nullable(),
  adapter_version: z.number().int(),
  status: z.enum(['queued', 'training', 'trained', 'dropped']),
  drop_reason: z.string().nullable(),
  step: z.number().int().nullable(),
  /** What the sample trains on: the turn's response, or an answer the policy wrote again (policy_rollouts); 'teacher' only in data from versions with teacher_rollouts. */
  response: z.enum(['turn', 'teacher', 'policy']),
});

/** One recorded model call: what was asked and answered, what followed, and what it taught. */
export const TurnViewSchema = z.object({
  id: z.string(),
  type: z.enum(['main', 'side']),
  session_id: z.string().nullable(),
  created_at: z.number().int(),
  completed_at: z.number().int(),
  adapter_version: z.number().int(),
  messages: z.array(ChatMessageSchema),
  response: z.string(),
  reasoning: z.string().nullable(),
  tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).nullable(),
  finish_reason: z.enum(['stop', 'length', 'tool_calls', 'abort']),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  next_state: z.object({ role: z.string(), text: z.string() }).nullable(),
  closed: z.boolean(),
  learn_note: z.string().nullable(),
  feedback: z
    .object({
      rating: z.enum(['up', 'down']).nullable(),
      hint: z.string().nullable(),
      reject_judge_hint: z.boolean().optional(),
      updated_at: z.number().int(),
    })
    .nullable(),
  judgements: z.array(JudgementView),
  samples: z.array(SampleView),
  receipt: ReceiptSchema,
});
export type TurnView = z.infer<typeof TurnViewSchema>;

export const SessionInfoSchema = z.object({
  id: z.string(),
  /** A name the user gave the conversation; null: none (the app shows the first message). */
  title: z.string().nullable(),
  created_at: z.number().int(),
  last_seen_at: z.number().int(),
  ended_at: z.number().int().nullable(),
  end_reason: z.enum(['done', 'idle']).nullable(),
  turns: z.number().int(),
  main_turns: z.number().int(),
  /** The first user message of the session, shortened (for lists). */
  preview: z.string().nullable(),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

/** The most sessions one page of GET /api/sessions holds, and how many when `limit` is left out. */
export const MAX_SESSION_PAGE = 1000;
export const DEFAULT_SESSION_PAGE = 200;

/** GET /api/sessions paging (query parameters). */
export const SessionQuerySchema = z
  .object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_SESSION_PAGE)
      .default(DEFAULT_SESSION_PAGE)
      .describe(`how many sessions (1–${MAX_SESSION_PAGE}, default ${DEFAULT_SESSION_PAGE})`),
    cursor: z.string().min(1).max(1024).optional().describe("the previous page's next_cursor: the sessions after it"),
  })
  .strict();
export type SessionQuery = z.input<typeof SessionQuerySchema>;

export const SessionListSchema = z.object({
  object: z.literal('list'),
  data: z.array(SessionInfoSchema),
  /** More sessions follow: ask again with `cursor` = `next_cursor` (absent from cores before paging: the list was whole). */
  has_more: z.boolean().optional(),
  next_cursor: z.string().nullable().optional(),
});
export type SessionList = z.infer<typeof SessionListSchema>;

export const SessionDetailSchema = SessionInfoSchema.extend({ turns: z.array(TurnViewSchema) }).omit({ main_turns: true });
export type SessionDetail = z.infer<typeof SessionDetailSchema>;

export const SessionPatchSchema = z
  .object({
    title: z
      .string()
      .trim()
      .min(1)
      .max(200, 'a title may have at most 200 characters')
      .refine((t) => !UNSAFE_TEXT.test(t), 'a title may not hold control characters or invisible bidi/formatting characters')
      .nullable()
      .describe('the new name; null removes it'),
  })
  .strict();
export type SessionPatch = z.infer<typeof SessionPatchSchema>;

export const SessionDeletedSchema = z.object({
  id: z.string(),
  deleted: z.literal(true),
  turns: z.number().int(),
  /** Samples that had not been trained on and went with the session (trained ones live on in checkpoints). */
  samples_removed: z.number().int(),
});

export const SessionEndRequestSchema = z
  .object({
    message: z
      .object({ role: z.enum(['user', 'tool']), content: ChatMessageSchema.shape.content.unwrap() })
      .strict()
      .optional()
      .describe('a final user reply or tool result: it becomes the next state of the last main turn'),
  })
  .strict();
export type SessionEndRequest = z.infer<typeof SessionEndRequestSchema>;

export const SessionEndResponseSchema = z.object({ id: z.string(), ended: z.literal(true), next_state_of: z.string().nullable() });

const BoolParam = z.enum(['true', 'false']).transform((v) => v === 'true');

/** GET /api/turns filters (query parameters). */
export const TurnQuerySchema = z
  .object({
    session_id: z.string().min(1).optional(),
    has_feedback: BoolParam.optional().describe('true: only turns rated or hinted; false: only turns without feedback'),
    trained: BoolParam.optional().describe('true: only turns a step trained on; false: only turns not trained on'),
    min_reward: z.coerce.number().min(-1).max(1).optional().describe('lowest reward (from −1 to 1)'),
    max_reward: z.coerce.number().min(-1).max(1).optional().describe('highest reward (from −1 to 1)'),
    limit: z.coerce.number().int().min(1).max(500).default(50).describe('how many turns (1–500, default 50)'),
    before: z.coerce.number().int().optional().describe('only turns created before this time (ms), for the next page'),
    q: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('only turns whose messages or answer contain this text (ASCII letters in any case)'),
  })
  .strict();
export type TurnQuery = z.input<typeof TurnQuerySchema>;

/** GET /api/export/sessions.jsonl: the Data screen's filters; none exports everything. */
export const ExportQuerySchema = TurnQuerySchema.omit({ limit: true, before: true });
export type ExportQuery = z.input<typeof ExportQuerySchema>;

export const TurnListSchema = z.object({ object: z.literal('list'), data: z.array(TurnViewSchema), has_more: z.boolean() });
export type TurnList = z.infer<typeof TurnListSchema>;

/** One line of the JSONL export (GET /api/export/sessions.jsonl and `clawloop export`): a session and its turns in order. */
export const ExportLineSchema = z.object({
  session_id: z.string(),
  turns: z.array(
    z.object({
      type: z.enum(['main', 'side']),
      /** The rendered prompt text the model saw. */
      prompt: z.string(),
      /** The text the model generated (tool-call and reasoning markup included). */
      response: z.string(),
      /** The next state's text, or null. */
      next_state: z.string().nullable(),
      /** A main turn with a next state. */
      trainable: z.boolean(),
    }),
  ),
});
export type ExportLine = z.infer<typeof ExportLineSchema>;
