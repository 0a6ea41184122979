import type { BackendName, Model } from '../engine/index.js';
import type { TrainingConfig, TrainingConfigPatch, TrainingStatus } from '../protocol/training.js';
import type { LearnStore } from '../store/learnStore.js';
import { CompetenceGate } from './gate/competenceGate.js';
import type { JudgeSetup } from './judgeSetup.js';
import { LivePolicy } from './livePolicy.js';
import type { TrainerEvent } from './trainerEvents.js';
import { trainingStatus } from './trainerStatus.js';
import { dropRetiredSettings, mergeTrainingConfig, modelTrainingDefaults } from './trainingConfig.js';

export interface TrainerOptions {
  modelDir: string;
  dataDir: string;
  /** tfjs backend of the trainer's model; default `CLAWLOOP_BACKEND`, else `native` where the addon loads, else `wasm`. */
  backend?: BackendName;
  store: LearnStore;
  /** Settings given on the command line; they override the stored configuration. */
  configPatch?: TrainingConfigPatch;
  /** Forget the stored configuration and start from the defaults (clawloop serve --reset-training-config). */
  resetConfig?: boolean;
  /** Receives every {@link TrainerEvent}. */
  emit: (e: TrainerEvent) => void;
}

/**
 * The trainer's state, shared by its parts (the loop, turn processing, the optimizer step,
 * checkpoints, the status). The loop runs one part at a time, so no part sees another's change
 * half done. Its parts read the fields and change them only through the named methods below.
 */
export class TrainerContext {
  private current: TrainingConfig;
  private isPaused: boolean;
  private stepsTaken: number;
  private loopState: TrainingStatus['state'] = 'starting';
  private lastError: string | undefined;
  private judgeSetup: JudgeSetup | null = null;
  /** The adapter being trained and served. */
  readonly policy: LivePolicy;
  /** The competence set and what a check compares with. */
  readonly gate: CompetenceGate;

  constructor(
    readonly opts: TrainerOptions,
    /** The trainer's own copy of the base model. */
    readonly model: Model,
  ) {
    const s = opts.store.trainerState();
    this.current = startingConfig(opts, opts.resetConfig ? null : s.config, (why) => (this.lastError = why));
    this.isPaused = s.paused;
    this.stepsTaken = s.lastStep;
    this.policy = new LivePolicy(s.liveVersion, s.liveCheckpointId, (e) => this.emit(e));
    this.gate = CompetenceGate.load(opts.modelDir);
  }

  /** The settings in force. */
  get config(): TrainingConfig {
    return this.current;
  }

  /** Puts validated settings in force (the caller saves them when they should outlive a restart). */
  applyConfig(next: TrainingConfig): void {
    this.current = next;
  }

  get paused(): boolean {
    return this.isPaused;
  }

  setPaused(paused: boolean): void {
    this.isPaused = paused;
  }

  /** The last step taken (skipped steps count). */
  get lastStep(): number {
    return this.stepsTaken;
  }

  /** Step `step` is recorded, taken or skipped. */
  stepRecorded(step: number): void {
    this.stepsTaken = step;
  }

  get state(): TrainingStatus['state'] {
    return this.loopState;
  }

  /** The last failure, shown in the status until a turn is judged successfully. */
  get error(): string | undefined {
    return this.lastError;
  }

  /** Shows `message` in the status until {@link clearError}. */
  setError(message: string): void {
    this.lastError = message;
  }

  /** The failure shown is over (all of it, or only one that starts with `prefix`). */
  clearError(prefix = ''): void {
    if (this.lastError?.startsWith(prefix)) this.lastError = undefined;
  }

  /** The judge the trainer asks; loaded by startJudge before the loop runs. */
  get judge(): JudgeSetup {
    if (!this.judgeSetup) throw new Error('the judge is asked for before startJudge loaded it');
    return this.judgeSetup;
  }

  /** Puts a loaded judge in place of the trainer's, freeing a judge model it had loaded. */
  useJudge(next: JudgeSetup): void {
    this.judgeSetup?.model?.dispose();
    this.judgeSetup = next;
  }

  /** Frees the judge's own model, if it loaded one (the trainer is stopping). */
  disposeJudge(): void {
    this.judgeSetup?.model?.dispose();
  }

  /**
   * Samples trained with a judge's hint that arrived after this time (ms) wait: the user may
   * reject the hint for feedback_wait_s, as a rating waits for its hint.
   */
  judgeHintCutoff(now = Date.now()): number {
    return this.config.feedback_wait_s > 0 ? now - this.config.feedback_wait_s * 1000 : Number.MAX_SAFE_INTEGER;
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

  /** Sets the loop's state and publishes the status; `publish: false` at start, before anyone listens. */
  setState(s: TrainingStatus['state'], o: { publish: boolean } = { publish: true }): void {
    this.loopState = s;
    if (o.publish) this.publishStatus();
  }

  publishStatus(): void {
    this.emit({ type: 'status', status: trainingStatus(this) });
  }
}

/**
 * The configuration to start with: the stored one with the command line's settings on top. A
 * stored configuration that no longer validates (written by another version) never stops the
 * trainer: it starts from the defaults and `onProblem` says why.
 */
function startingConfig(opts: TrainerOptions, stored: TrainingConfig | null, onProblem: (why: string) => void): TrainingConfig {
  const defaults = modelTrainingDefaults(opts.modelDir);
  if (stored) {
    const { config, dropped } = dropRetiredSettings(stored);
    if (dropped.length) onProblem(dropped.join('; '));
    try {
      return mergeTrainingConfig(defaults, { ...(config as object), ...(opts.configPatch ?? {}) });
    } catch (err) {
      onProblem(`the stored training settings are not valid (${(err as Error).message}); starting from the defaults`);
    }
  }
  return mergeTrainingConfig(defaults, opts.configPatch ?? {});
}
