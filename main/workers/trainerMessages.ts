/**
 * Messages between the HTTP thread and the trainer worker (main/workers/trainerWorker.ts).
 * Commands carry an `id`; the worker answers each with one `reply`.
 */
import type { BackendName } from '../engine/backend.js';
import type { NewEvent } from '../protocol/events.js';
import type { TrainingConfig, TrainingConfigPatch, TrainingStatus } from '../protocol/training.js';
import type { AdapterPayload } from './inferenceMessages.js';

export interface TrainerWorkerData {
  modelDir: string;
  dataDir: string;
  backend?: BackendName;
  /** Command-line settings; they override the stored configuration. */
  configPatch?: TrainingConfigPatch;
}

export type ToTrainerWorker =
  /** Something changed (turn stored, next state linked, feedback, session ended): look for work. */
  | { type: 'wake' }
  | { type: 'setConfig'; id: number; patch: unknown }
  | { type: 'setPaused'; id: number; paused: boolean }
  | { type: 'rollback'; id: number; checkpoint: string }
  | { type: 'stop' };

export type TrainerReply =
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; status: number; field: string | null; message: string };

export type FromTrainerWorker =
  | { type: 'ready'; adapter: AdapterPayload; status: TrainingStatus; config: TrainingConfig }
  | { type: 'fatal'; message: string }
  | { type: 'adapter'; adapter: AdapterPayload }
  | { type: 'status'; status: TrainingStatus }
  | { type: 'log'; line: string }
  /** Something happened in the learning loop: the HTTP thread numbers, stores and broadcasts it. */
  | { type: 'event'; event: NewEvent }
  | TrainerReply
  | { type: 'stopped' };
