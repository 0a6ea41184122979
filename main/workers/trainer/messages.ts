/**
 * Messages between the HTTP thread and the trainer worker (main/workers/trainer/worker.ts).
 * Commands carry an `id`; the worker answers each with one `reply`.
 */
import type { BackendName } from '../../engine/index.js';
import type { TrainingConfig, TrainingConfigPatch, TrainingStatus } from '../../protocol/training.js';
import type { TrainerEvent } from '../../rl/trainerEvents.js';
import type { AdapterPayload } from '../inference/messages.js';

export interface TrainerWorkerData {
  modelDir: string;
  dataDir: string;
  backend?: BackendName;
  /** Command-line settings; they override the stored configuration. */
  configPatch?: TrainingConfigPatch;
  /** Start from the default settings, forgetting the stored ones. */
  resetConfig?: boolean;
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
  /** A new live adapter (its tensors are transferred, not copied). */
  /** A new adapter to serve; once it serves, the HTTP thread announces `adapter.live` with this reason. */
  | { type: 'adapter'; adapter: AdapterPayload; checkpointId: string | null; reason: 'trained' | 'rollback' | 'startup' }
  /** Every other trainer event (status, log, event), as the trainer emitted it. */
  | Exclude<TrainerEvent, { type: 'adapter' }>
  | TrainerReply
  | { type: 'stopped' };
