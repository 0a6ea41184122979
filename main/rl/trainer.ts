import { Model } from '../engine/index.js';
import type { TrainingConfig, TrainingStatus } from '../protocol/training.js';
import type { ReadyTurn } from '../store/learnStore.js';
import { restoreLiveCheckpoint, rollbackTo } from './checkpointing.js';
import { cleanupCheckpointTemp } from './checkpointFiles.js';
import { resumePendingGate } from './gate/checkpointGate.js';
import { loadJudge, startJudge, type JudgeSetup } from './judgeSetup.js';
import { adamConfig } from './livePolicy.js';
import { runOptimizerStep } from './optimizerStep.js';
import { TrainerContext, type TrainerOptions } from './trainerContext.js';
import type { AdapterEvent } from './trainerEvents.js';
import { trainingStatus } from './trainerStatus.js';
import { checkLoraShapeUnchanged, mergeTrainingConfig, TrainingConfigError } from './trainingConfig.js';
import { JudgeFailedError, logPrm, processTurn } from './turnProcessing.js';

/**
 * The learning loop, meant to run in its own worker thread: it judges main turns that got their
 * next state or feedback, builds RL/OPD samples, runs an optimizer step whenever `batch_size`
 * samples wait, saves a checkpoint per step and announces the new adapter for hot-swap.
 * Commands (config, pause, rollback) run between work items, never inside a step.
 */
export class Trainer {
  private stopped = false;
  private wakeUp: (() => void) | null = null;
  /** Work items and commands, one at a time in arrival order. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Aborts the judging in progress when the trainer stops (commands wait for it: judging is never thrown away). */
  private work: AbortController | null = null;
  private backoffUntil = 0;

  private constructor(private readonly ctx: TrainerContext) {}

  /** Loads the base model, restores the live adapter and optimizer, and returns a trainer ready to run. */
  static async start(opts: TrainerOptions): Promise<Trainer> {
    const model = await Model.load(opts.modelDir, { backend: opts.backend });
    const ctx = new TrainerContext(opts, model);
    ctx.store.saveConfig(ctx.config);
    const removed = cleanupCheckpointTemp(opts.dataDir, new Set(ctx.store.checkpoints().map((c) => c.id)));
    if (removed) ctx.log(`removed ${removed} unfinished checkpoint save(s) or folder(s) no checkpoint lists`);
    const requeued = ctx.store.requeueUnfinished();
    if (requeued) ctx.log(`requeued ${requeued} sample(s) of a step that did not finish`);
    restoreLiveCheckpoint(ctx);
    await startJudge(ctx);
    ctx.setState('idle', { publish: false });
    return new Trainer(ctx);
  }

  /** The adapter to serve right now (the live version). */
  currentAdapter(): Promise<AdapterEvent> {
    return this.ctx.policy.event('startup');
  }

  status(): TrainingStatus {
    return trainingStatus(this.ctx);
  }

  get trainingConfig(): TrainingConfig {
    return this.ctx.config;
  }

  /** New turns, feedback or sessions: look for work now. */
  wake(): void {
    this.wakeUp?.();
  }

  /** Runs a command between work items: after the judging or step in progress, which is never interrupted. */
  private command<T>(f: () => T | Promise<T>): Promise<T> {
    const p = this.queue.then(f);
    this.queue = p.catch(() => {});
    this.wake();
    return p;
  }

  /**
   * Changes settings atomically: the whole new configuration is validated, and a new judge loaded,
   * before anything changes; a failure leaves the old settings in force and says why (400).
   */
  setConfig(patch: unknown): Promise<TrainingConfig> {
    return this.command(async () => {
      const ctx = this.ctx;
      const next = mergeTrainingConfig(ctx.config, patch);
      if (ctx.policy.adapter) checkLoraShapeUnchanged(ctx.config, next);
      const judge = JSON.stringify(next.judge) !== JSON.stringify(ctx.config.judge) ? await this.tryJudge(next) : null;
      ctx.applyConfig(next);
      if (judge) {
        ctx.useJudge(judge);
        ctx.clearError('the configured judge does not load');
      }
      const { lr, weightDecay, maxGradNorm } = adamConfig(next);
      ctx.policy.optimizer?.configure({ lr, weightDecay, maxGradNorm });
      ctx.store.saveConfig(next);
      ctx.publishStatus();
      return next;
    });
  }

  /** Loads the judge a new configuration names; one that does not load is a 400 naming the field. */
  private async tryJudge(next: TrainingConfig): Promise<JudgeSetup> {
    try {
      return await loadJudge(next.judge, this.ctx.model, this.ctx.opts.modelDir);
    } catch (err) {
      throw new TrainingConfigError(`the judge cannot be used: ${(err as Error).message}; the settings are unchanged`, 'judge');
    }
  }

  setPaused(paused: boolean): Promise<TrainingStatus> {
    return this.command(() => {
      this.ctx.setPaused(paused);
      this.ctx.store.setPaused(paused);
      this.ctx.publishStatus();
      return this.status();
    });
  }

  /** Makes a checkpoint ('base' for the base model) the live policy as a new version; training continues from it. */
  rollback(id: string): Promise<{ version: number; checkpoint: string | null }> {
    return this.command(() => rollbackTo(this.ctx, id));
  }

  /** The loop: commands, then a step when a batch is ready, else one ready turn, else wait. */
  async run(): Promise<void> {
    this.ctx.publishStatus();
    while (!this.stopped) {
      await this.queue;
      if (this.stopped) break;
      const did = (await (this.queue = this.queue
        .then(() => this.workOnce())
        .catch((err) => {
          const message = (err as Error).message;
          this.ctx.setError(message);
          this.ctx.log(`error: ${message}`);
          const where = err instanceof JudgeFailedError ? 'judge' : 'trainer';
          this.ctx.emit({ type: 'event', event: { event: 'error', data: { where, message } } });
          this.backoffUntil = Date.now() + 5000;
          return false;
        }))) as boolean;
      if (!did) await this.idle(Math.max(100, this.backoffUntil - Date.now(), 2000));
    }
  }

  private idle(ms: number): Promise<void> {
    if (this.ctx.state !== 'idle') this.ctx.setState('idle');
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        done();
      };
    });
  }

  /** Does one piece of work; false when there was nothing to do. */
  private async workOnce(): Promise<boolean> {
    const { config: c, store } = this.ctx;
    if (c.method === 'off' || this.ctx.paused) return false;
    if (store.pendingCheckpoint()) {
      await resumePendingGate(this.ctx); // a checkpoint saved before a restart or a failed check
      return true;
    }
    if (store.readySampleCount(this.ctx.judgeHintCutoff()) >= c.batch_size) {
      await runOptimizerStep(this.ctx);
      return true;
    }
    if (Date.now() < this.backoffUntil) return false;
    const ready = store.nextReadyTurn({ now: Date.now(), waitMs: c.feedback_wait_s * 1000 });
    if (ready) {
      await this.judgeTurn(ready);
      return true;
    }
    const logOnly = store.nextTurnNeedingLoggedPrm();
    if (logOnly) {
      await logPrm(this.ctx, logOnly);
      return true;
    }
    return false;
  }

  private async judgeTurn(ready: ReadyTurn): Promise<void> {
    this.work = new AbortController();
    try {
      await processTurn(this.ctx, ready, this.work.signal);
    } finally {
      this.work = null;
    }
  }

  /** Stops after the current work item and frees the models. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.work?.abort();
    this.wake();
    await this.queue.catch(() => {});
    this.ctx.policy.clear();
    this.ctx.disposeJudge();
    this.ctx.model.dispose();
  }
}
