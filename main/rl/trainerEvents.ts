import type { LoraConfig } from '../engine/index.js';
import type { NewEvent } from '../protocol/events.js';
import type { TrainingStatus } from '../protocol/training.js';

/** A new live policy: serve it from the next request on. `lora` and `tensors` null mean the base model. */
export interface AdapterEvent {
  type: 'adapter';
  version: number;
  /** The checkpoint it is (null: the base model). */
  checkpointId: string | null;
  /** Why it goes live: a step trained it, the user rolled back to it, or the trainer started with it. */
  reason: 'trained' | 'rollback' | 'startup';
  lora: LoraConfig | null;
  tensors: Map<string, Float32Array> | null;
}

/**
 * What the trainer tells the HTTP thread. Each part of the trainer emits an event where the thing
 * happens (`ctx.emit({ type: ..., ... })`); the trainer worker forwards every event as a message.
 * A new kind of event is a new member here and one `emit` call.
 */
export type TrainerEvent =
  | AdapterEvent
  | { type: 'status'; status: TrainingStatus }
  | { type: 'log'; line: string }
  /** Something happened in the learning loop: the HTTP thread numbers, stores and broadcasts it (GET /api/events). */
  | { type: 'event'; event: NewEvent };
