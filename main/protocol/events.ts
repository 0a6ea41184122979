/**
 * The live event stream, GET /api/events (server-sent events): one event per thing that happens in
 * the learning loop, in order, each with an increasing `id:`. A client that reconnects with
 * `Last-Event-ID` (or `?since=ID`) gets what it missed. Pure zod schemas and inferred types: the UI
 * imports this module.
 */
import { z } from 'zod';
import { TRAINING_STATES } from './training.js';

const TurnCaptured = z.object({
  session_id: z.string().nullable(),
  turn_id: z.string(),
  turn_type: z.enum(['main', 'side']),
  /** The adapter version that answered (0: the base model). */
  adapter_version: z.number().int().min(0),
  prompt_tokens: z.number().int().min(0),
  completion_tokens: z.number().int().min(0),
  finish_reason: z.enum(['stop', 'length', 'tool_calls', 'abort']),
});

export const FEEDBACK_KINDS = ['thumbs_up', 'thumbs_down', 'hint', 'next_state', 'cleared'] as const;

const FeedbackReceived = z.object({
  turn_id: z.string(),
  /** thumbs_up / thumbs_down / hint from the user; next_state: what followed the turn (a reply, a tool result); cleared: feedback removed. */
  kind: z.enum(FEEDBACK_KINDS),
  text: z.string().nullable(),
});

const SampleJudged = z.object({
  turn_id: z.string(),
  /** The reward the turn trains with (null: no RL part). */
  score: z.number().nullable(),
  /** Where the score came from. */
  score_source: z.enum(['feedback', 'prm', 'at_least_one']).nullable(),
  /** The PRM's votes (empty when 👍/👎 decided and the judge did not run). */
  votes: z.array(z.number().nullable()),
  hint: z.string().nullable(),
  /** What the turn will train with: rl, opd, both, or none (then `reason` says why). */
  method: z.enum(['rl', 'opd', 'both', 'none']),
  reason: z.string().nullable(),
});

const SampleDropped = z.object({
  turn_id: z.string(),
  reason: z.string(),
});

const TrainStep = z.object({
  step: z.number().int().min(1),
  loss: z.number().nullable(),
  reward_mean: z.number().nullable(),
  kl: z.number().nullable(),
  clip_frac: z.number().nullable(),
  lr: z.number(),
  samples: z.number().int().min(0),
  tokens: z.number().int().min(0),
  step_seconds: z.number().min(0),
  skipped: z.boolean(),
  skip_reason: z.string().nullable(),
  /** The turns whose samples this step trained on. */
  turn_ids: z.array(z.string()),
});

const CheckpointSaved = z.object({
  checkpoint_id: z.string(),
  version: z.number().int().min(1),
  parent: z.string().nullable(),
  step: z.number().int().min(1),
  metrics: z.object({ loss: z.number(), reward_mean: z.number().nullable(), samples: z.number().int(), tokens: z.number().int() }),
  /** Set once the competence gate has checked it (a second `checkpoint.saved` event follows the check). */
  competence: z.object({ accuracy: z.number(), n: z.number().int(), held_back: z.boolean(), reason: z.string().nullable() }).nullable(),
});

const AdapterLive = z.object({
  version: z.number().int().min(0),
  /** null: the base model. */
  checkpoint_id: z.string().nullable(),
  reason: z.enum(['trained', 'rollback', 'pin', 'startup']),
});

const TrainingStateEvent = z.object({
  state: z.enum(TRAINING_STATES),
  message: z.string().nullable(),
  /** Samples waiting for a step. */
  queue_length: z.number().int().min(0),
  /** Turns with a signal waiting for the judge. */
  pending_turns: z.number().int().min(0),
});

/**
 * The core is shutting down (Ctrl-C, SIGTERM): from now on it refuses new requests (503
 * `shutting_down`); reads and this stream go on until the port closes. `step` is the training step
 * it finishes first (null when none runs); `message` says so in words, for a banner.
 */
const ServerStopping = z.object({
  step: z.number().int().min(1).nullable(),
  message: z.string(),
});

const ErrorEvent = z.object({
  where: z.enum(['trainer', 'judge', 'inference', 'server']),
  message: z.string(),
});

/** Every event name with the schema of its `data:`. */
export const EVENT_SCHEMAS = {
  'turn.captured': TurnCaptured,
  'feedback.received': FeedbackReceived,
  'sample.judged': SampleJudged,
  'sample.dropped': SampleDropped,
  'train.step': TrainStep,
  'checkpoint.saved': CheckpointSaved,
  'adapter.live': AdapterLive,
  'training.state': TrainingStateEvent,
  'server.stopping': ServerStopping,
  error: ErrorEvent,
} as const;

export type EventName = keyof typeof EVENT_SCHEMAS;
export const EVENT_NAMES = Object.keys(EVENT_SCHEMAS) as EventName[];
export type EventData<N extends EventName> = z.infer<(typeof EVENT_SCHEMAS)[N]>;

/** An event as it travels: `id:` and `event:` lines, and `data:` holding the fields plus `at` (ms since epoch). */
export type ClawLoopEvent = { [N in EventName]: { id: number; event: N; at: number; data: EventData<N> } }[EventName];

/** An event before the server numbers it. */
export type NewEvent = { [N in EventName]: { event: N; data: EventData<N> } }[EventName];

/**
 * Sent instead of the missed events when a client asks to resume from an id older than the
 * server keeps (at least the last 10,000 events or the last hour): refetch state, then follow.
 */
export const GAP_EVENT = 'stream.gap';
export const StreamGapSchema = z.object({ requested: z.number().int(), oldest: z.number().int() });

/** Parses one event's `data:` (for clients and tests); throws a ZodError naming the bad field. */
export function parseEventData<N extends EventName>(name: N, data: unknown): EventData<N> {
  return EVENT_SCHEMAS[name].parse(data) as EventData<N>;
}

export function isEventName(name: string): name is EventName {
  return Object.hasOwn(EVENT_SCHEMAS, name);
}
