import type { BackendName, Model } from '../engine/index.js';
import type { TrainingConfig, TrainingConfigPatch, TrainingStatus } from '../protocol/training.js';
import type { LearnStore } from '../store/learnStore.js';
import type { JudgeSetup } from './judgeSetup.js';
import { LivePolicy } from './livePolicy.js';
import type { TrainerEvent } from './trainerEvents.js';
import { trainingStatus } from './trainerStatus.js';
import { mergeTrainingConfig, modelTrainingDefaults } from './trainingConfig.js';

export interface TrainerOptions {
  modelDir: string;
  dataDir: string;
  /** tfjs backend of the trainer's model; default `CLAWLOOP_BACKEND` or `wasm`. */
  backend?: BackendName;
  store: LearnStore;
  /** Settings given on the command line; they override the stored configuration. */
  configPatch?: TrainingConfigPatch;
  /** Receives every {@link TrainerEvent}. */
  emit: (e: TrainerEvent) => void;
}

/**
 * The trainer's state, shared by its parts (the loop, turn processing, the optimizer step,
 * checkpoints, the status). The loop runs one part at a time, so no part sees another's change
 * half done.
 */
export class TrainerContext {
  config: TrainingConfig;
  paused: boolean;
  /** The last step taken (skipped steps count). */
  lastStep: number;
  state: TrainingStatus['state'] = 'starting';
  /** The last failure, shown in the status until a turn is judged successfully. */
  error: string | undefined;
  /** The adapter being trained and served. */
  readonly policy: LivePolicy;
  judge!: JudgeSetup;

  constructor(
    readonly opts: TrainerOptions,
    /** The trainer's own copy of the base model. */
    readonly model: Model,
  ) {
    const s = opts.store.trainerState();
    this.config = mergeTrainingConfig(s.config ?? modelTrainingDefaults(opts.modelDir), opts.configPatch ?? {});
    this.paused = s.paused;
    this.lastStep = s.lastStep;
    this.policy = new LivePolicy(s.liveVersion, s.liveCheckpointId);
  }

  get store(): LearnStore {
    return this.opts.store;
  }

  emit(e: TrainerEvent): void {
    this.opts.emit(e);
  }

  log(line: string): void {
    this.emit({ type: 'log', line: `clawloop trainer: ${line}` });
  }

  setState(s: TrainingStatus['state']): void {
    this.state = s;
    this.publishStatus();
  }

  publishStatus(): void {
    this.emit({ type: 'status', status: trainingStatus(this) });
  }
}
