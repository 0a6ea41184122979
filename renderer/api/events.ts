/**
 * The events of GET /api/events (issue 10's table), typed for the app. Becomes a re-export of
 * main/protocol/events.ts once that lands. Every event's data also carries `at` (ms since epoch).
 */
export interface EventDataMap {
  'turn.captured': { session_id: string | null; turn_id: string; adapter_version: number; prompt_tokens: number; completion_tokens: number };
  'feedback.received': { turn_id: string; kind: 'thumbs_up' | 'thumbs_down' | 'hint' | 'next_state' | string; text?: string | null };
  'sample.judged': { turn_id: string; score: number | null; votes?: unknown; hint?: string | null; method?: string };
  'sample.dropped': { turn_id: string; reason: string };
  'train.step': {
    step: number;
    loss: number;
    reward_mean: number | null;
    kl: number;
    clip_frac: number;
    lr: number;
    samples: number;
    tokens: number;
    step_seconds: number;
    skipped: boolean;
    skip_reason: string | null;
    turn_ids?: string[];
  };
  'checkpoint.saved': {
    checkpoint_id: string;
    version: number;
    parent: string | null;
    step: number;
    metrics?: unknown;
    competence?: { accuracy: number; n: number; held_back: boolean; reason: string | null } | null;
  };
  'adapter.live': { version: number; checkpoint_id: string | null; reason: 'trained' | 'rollback' | 'pin' | 'startup' | string };
  'training.state': { state: string; message?: string | null; queue_length?: number; queue?: number };
  error: { where: string; message: string };
}

export type EventType = keyof EventDataMap;
export const EVENT_TYPES = Object.freeze([
  'turn.captured',
  'feedback.received',
  'sample.judged',
  'sample.dropped',
  'train.step',
  'checkpoint.saved',
  'adapter.live',
  'training.state',
  'error',
] as const satisfies readonly EventType[]);

/** One event as the app handles it: its stream id, its name and its data. */
export type ClawLoopEvent = { [K in EventType]: { id: number | null; type: K; data: EventDataMap[K] & { at?: number } } }[EventType];

export function isEventType(name: string): name is EventType {
  return (EVENT_TYPES as readonly string[]).includes(name);
}
