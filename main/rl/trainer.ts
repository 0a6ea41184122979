import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import {
  AdamW,
  type BackendName,
  computeGradients,
  LoraAdapter,
  type LoraConfig,
  Model,
  scoreResponses,
  type TrainBatch,
} from '../engine/index.js';
import {
  effectiveKlCoef,
  LORA_SHAPE_FIELDS,
  type StepMetrics,
  type TrainingConfig,
  type TrainingConfigPatch,
  type TrainingStatus,
} from '../protocol/training.js';
import type { LearnStore, StoredSample } from '../store/learnStore.js';
import type { StoredTurn } from '../store/turnStore.js';
import { tokenAdvantages } from './advantages.js';
import {
  checkpointDir,
  checkpointId,
  checkpointsToDelete,
  cleanupCheckpointTemp,
  deleteCheckpointDir,
  loadCheckpointAdapter,
  optimizerFile,
  saveCheckpoint,
} from './checkpointFiles.js';
import { EndpointJudgeBackend, JudgeInputError, ModelJudgeBackend, type JudgeBackend } from './judge.js';
import { loadJudgePrompts, type JudgePrompts } from './judgePrompts.js';
import { policyLoss } from './losses.js';
import { buildSamples } from './sampleBuilder.js';
import { mergeTrainingConfig, modelTrainingDefaults, TrainingConfigError } from './trainingConfig.js';

export { mergeTrainingConfig, TrainingConfigError };

/** What the trainer tells the HTTP thread. */
export type TrainerEvent =
  /** A new live policy: serve it from the next request on. `tensors` null means the base model. */
  | { type: 'adapter'; version: number; lora: LoraConfig | null; tensors: Map<string, Float32Array> | null }
  | { type: 'status'; status: TrainingStatus }
  | { type: 'log'; line: string };

export interface TrainerOptions {
  modelDir: string;
  dataDir: string;
  backend?: BackendName;
  store: LearnStore;
  /** Settings given on the command line; they override the stored configuration. */
  configPatch?: TrainingConfigPatch;
  emit: (e: TrainerEvent) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The learning loop, meant to run in its own worker thread: it judges main turns that got their
 * next state or feedback, builds RL/OPD samples, runs an optimizer step whenever `batch_size`
 * samples wait, saves a checkpoint per step and announces the new adapter for hot-swap.
 * Commands (config, pause, rollback) run between work items, never inside a step.
 */
export class Trainer {
  private config: TrainingConfig;
  private paused: boolean;
  private adapter: LoraAdapter | null = null;
  private optimizer: AdamW | null = null;
  private liveVersion: number;
  private liveCheckpoint: string | null;
  private lastStep: number;
  private state: TrainingStatus['state'] = 'starting';
  private error: string | undefined;
  private stopped = false;
  private wakeUp: (() => void) | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private work: AbortController | null = null;
  private judge!: JudgeBackend;
  private prompts!: JudgePrompts;
  private judgeModel: Model | null = null;
  private backoffUntil = 0;

  private constructor(
    private readonly opts: TrainerOptions,
    private readonly model: Model,
  ) {
    const s = opts.store.trainerState();
    this.config = mergeTrainingConfig(s.config ?? modelTrainingDefaults(opts.modelDir), opts.configPatch ?? {});
    this.paused = s.paused;
    this.liveVersion = s.liveVersion;
    this.liveCheckpoint = s.liveCheckpointId;
    this.lastStep = s.lastStep;
  }

  /** Loads the base model, restores the live adapter and optimizer, and returns a trainer ready to run. */
  static async start(opts: TrainerOptions): Promise<Trainer> {
    const model = await Model.load(opts.modelDir, { backend: opts.backend });
    const t = new Trainer(opts, model);
    const { store } = opts;
    store.saveConfig(t.config);
    const removed = cleanupCheckpointTemp(opts.dataDir);
    if (removed) t.log(`removed ${removed} unfinished checkpoint save(s)`);
    const requeued = store.requeueUnfinished();
    if (requeued) t.log(`requeued ${requeued} sample(s) of a step that did not finish`);
    if (t.liveCheckpoint) {
      try {
        t.restoreFrom(t.liveCheckpoint);
      } catch (err) {
        t.error = `the live checkpoint ${t.liveCheckpoint} does not load (${(err as Error).message}); serving and training from the base model`;
        t.log(t.error);
        t.liveCheckpoint = null;
      }
    }
    await t.setupJudge();
    t.state = 'idle';
    return t;
  }

  private log(line: string): void {
    this.opts.emit({ type: 'log', line: `clawloop trainer: ${line}` });
  }

  private restoreFrom(id: string): void {
    const adapter = loadCheckpointAdapter(this.opts.dataDir, id, this.model.config);
    const optimizer = new AdamW(adapter.variables(), this.adamConfig());
    optimizer.load(optimizerFile(this.opts.dataDir, id));
    this.adapter?.dispose();
    this.optimizer?.dispose();
    this.adapter = adapter;
    this.optimizer = optimizer;
    this.config = {
      ...this.config,
      lora_rank: adapter.config.r,
      lora_alpha: adapter.config.alpha,
      lora_targets: adapter.config.targets,
      lora_dropout: adapter.config.dropout,
    };
  }

  private adamConfig() {
    const c = this.config;
    return { lr: c.learning_rate, weightDecay: c.weight_decay, maxGradNorm: c.max_grad_norm, beta1: 0.9, beta2: 0.98 };
  }

  private async setupJudge(): Promise<void> {
    const j = this.config.judge;
    this.judgeModel?.dispose();
    this.judgeModel = null;
    if (j.kind === 'base') {
      this.judge = new ModelJudgeBackend(this.model, 'base model (adapter off)');
      this.prompts = loadJudgePrompts(this.opts.modelDir);
    } else if (j.kind === 'model') {
      this.judgeModel = await Model.load(j.dir);
      this.judge = new ModelJudgeBackend(this.judgeModel, `model ${path.resolve(j.dir)}`);
      this.prompts = loadJudgePrompts(j.dir);
    } else {
      this.judge = new EndpointJudgeBackend(j.url, j.api_key ?? null, j.model);
      this.prompts = loadJudgePrompts(null);
    }
  }

  /** The adapter to serve right now (the live version). */
  currentAdapter(): TrainerEvent & { type: 'adapter' } {
    return this.adapterEvent();
  }

  private adapterEvent(): TrainerEvent & { type: 'adapter' } {
    if (!this.adapter) return { type: 'adapter', version: this.liveVersion, lora: null, tensors: null };
    const tensors = new Map<string, Float32Array>();
    for (const [n, t] of this.adapter.toTensors()) tensors.set(n, t.data);
    return { type: 'adapter', version: this.liveVersion, lora: this.adapter.config, tensors };
  }

  status(): TrainingStatus {
    const last = this.opts.store.steps(this.lastStep - 1).at(-1);
    return {
      method: this.config.method,
      state: this.config.method === 'off' ? 'off' : this.paused ? 'paused' : this.state,
      queued_samples: this.opts.store.queuedCount(),
      step: this.lastStep,
      adapter_version: this.liveVersion,
      last_step: last ? { ...last.metrics, step: last.step, skipped: last.skipped, skip_reason: last.skipReason } : null,
      ...(this.error ? { error: this.error } : {}),
    };
  }

  get trainingConfig(): TrainingConfig {
    return this.config;
  }

  private publishStatus(): void {
    this.opts.emit({ type: 'status', status: this.status() });
  }

  /** New turns, feedback or sessions: look for work now. */
  wake(): void {
    this.wakeUp?.();
  }

  /** Runs a command between work items (the current judging, if any, is interrupted and redone later). */
  private command<T>(f: () => T | Promise<T>): Promise<T> {
    this.work?.abort();
    const p = this.queue.then(f);
    this.queue = p.catch(() => {});
    this.wake();
    return p;
  }

  setConfig(patch: unknown): Promise<TrainingConfig> {
    return this.command(async () => {
      const next = mergeTrainingConfig(this.config, patch);
      if (this.adapter) {
        for (const f of LORA_SHAPE_FIELDS) {
          if (JSON.stringify(next[f]) !== JSON.stringify(this.config[f])) {
            throw new TrainingConfigError(
              `${f} cannot change while a trained adapter is live (it fixes the adapter's shape); roll back to the base model first: POST /api/checkpoints/base/rollback`,
              f,
              409,
            );
          }
        }
      }
      const judgeChanged = JSON.stringify(next.judge) !== JSON.stringify(this.config.judge);
      this.config = next;
      this.optimizer?.configure({ lr: next.learning_rate, weightDecay: next.weight_decay, maxGradNorm: next.max_grad_norm });
      if (judgeChanged) await this.setupJudge();
      this.opts.store.saveConfig(next);
      this.publishStatus();
      return next;
    });
  }

  setPaused(paused: boolean): Promise<TrainingStatus> {
    return this.command(() => {
      this.paused = paused;
      this.opts.store.setPaused(paused);
      this.publishStatus();
      return this.status();
    });
  }

  /** Makes a checkpoint ('base' for the base model) the live policy as a new version; training continues from it. */
  rollback(id: string): Promise<{ version: number; checkpoint: string | null }> {
    return this.command(() => {
      const target = id === 'base' ? null : id;
      if (target) {
        if (!this.opts.store.checkpoint(target)) throw new TrainingConfigError(`no checkpoint '${id}'`, 'id', 404);
        this.restoreFrom(target);
      } else {
        this.adapter?.dispose();
        this.optimizer?.dispose();
        this.adapter = null;
        this.optimizer = null;
      }
      const version = this.opts.store.maxVersion() + 1;
      this.opts.store.recordRollback(target, version, Date.now());
      this.liveVersion = version;
      this.liveCheckpoint = target;
      this.opts.emit(this.adapterEvent());
      this.log(`rolled back to ${target ?? 'the base model'} as adapter version ${version}`);
      this.publishStatus();
      return { version, checkpoint: target };
    });
  }

  /** The loop: commands, then a step when a batch is ready, else one ready turn, else wait. */
  async run(): Promise<void> {
    this.publishStatus();
    while (!this.stopped) {
      await this.queue;
      if (this.stopped) break;
      const did = (await (this.queue = this.queue
        .then(() => this.workOnce())
        .catch((err) => {
          this.error = (err as Error).message;
          this.log(`error: ${this.error}`);
          this.backoffUntil = Date.now() + 5000;
          return false;
        }))) as boolean;
      if (!did) await this.idle(Math.max(100, this.backoffUntil - Date.now(), 2000));
    }
  }

  private idle(ms: number): Promise<void> {
    if (this.state !== 'idle') {
      this.state = 'idle';
      this.publishStatus();
    }
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
    const c = this.config;
    if (c.method === 'off' || this.paused) return false;
    const store = this.opts.store;
    if (store.queuedCount() >= c.batch_size) {
      await this.step();
      return true;
    }
    if (Date.now() < this.backoffUntil) return false;
    const ready = store.nextReadyTurn();
    if (ready) {
      await this.processTurn(ready.turn, ready.epoch, ready.feedback);
      return true;
    }
    const logOnly = store.nextTurnNeedingLoggedPrm();
    if (logOnly) {
      await this.logPrm(logOnly);
      return true;
    }
    return false;
  }

  private setState(s: TrainingStatus['state']): void {
    this.state = s;
    this.publishStatus();
  }

  private async processTurn(turn: StoredTurn, epoch: number, feedback: ReturnType<LearnStore['feedback']>): Promise<void> {
    this.setState('judging');
    const store = this.opts.store;
    this.work = new AbortController();
    try {
      const built = await buildSamples(
        {
          model: this.model,
          policy: this.adapter,
          judge: this.judge,
          prompts: this.prompts,
          config: this.config,
          signal: this.work.signal,
        },
        { turn, feedback, judgements: store.judgements(turn.id), firstWithNextState: store.isFirstTurnWithNextState(turn) },
      );
      const now = Date.now();
      for (const j of built.judgements) store.insertJudgement(turn.id, j, now);
      if (this.work.signal.aborted) return; // a command interrupted us; the turn is redone later
      store.commitTurn(turn.id, epoch, built.samples, now);
      this.error = undefined;
    } catch (err) {
      if (this.work.signal.aborted) return;
      if (err instanceof JudgeInputError) {
        // It will never work for this turn: skip it (with the reason) rather than block the queue.
        store.skipTurn(turn.id, epoch, (err as Error).message);
        this.log(`skipped turn ${turn.id}: ${(err as Error).message}`);
        return;
      }
      throw new Error(`judging turn ${turn.id} failed: ${(err as Error).message}`);
    } finally {
      this.work = null;
    }
  }

  /** The PRM of a turn whose reward came from feedback, recorded to measure judge agreement. */
  private async logPrm(turn: StoredTurn): Promise<void> {
    this.setState('judging');
    const cfg = { ...this.config, method: 'rl' as const };
    const built = await buildSamples(
      { model: this.model, policy: this.adapter, judge: this.judge, prompts: this.prompts, config: cfg },
      { turn, feedback: null, judgements: [], firstWithNextState: false },
    );
    const prm = built.judgements.find((j) => j.kind === 'prm');
    if (prm) this.opts.store.insertJudgement(turn.id, prm, Date.now());
  }

  /** One optimizer step on the oldest queued samples. */
  private async step(): Promise<void> {
    const c = this.config;
    const store = this.opts.store;
    const batch = store.takeBatch(c.batch_size, this.liveVersion, c.max_staleness);
    if (!batch.length) return;
    this.setState('training');
    const t0 = performance.now();
    const step = this.lastStep + 1;
    const ids = batch.map((b) => b.sample.id);
    try {
      if (!this.adapter) {
        this.adapter = LoraAdapter.create(
          this.model.config,
          { r: c.lora_rank, alpha: c.lora_alpha, targets: c.lora_targets, dropout: c.lora_dropout },
          step,
        );
        this.optimizer = new AdamW(this.adapter.variables(), this.adamConfig());
      }
      const adapter = this.adapter;
      const trainBatch = await this.trainBatchOf(batch);
      const klCoef = effectiveKlCoef(c);
      const loss = policyLoss({
        epsLow: c.eps_low,
        epsHigh: c.eps_high,
        klCoef,
        entropyCoef: c.entropy_coef,
        topKReverseKl: c.opd_loss === 'topk_reverse_kl',
      });
      const g = computeGradients(this.model.lm, trainBatch, loss.fn, { adapter });
      const lm = loss.takeMetrics();
      const counts = { rl: 0, opd: 0, both: 0, total: batch.length };
      batch.forEach((b) => counts[b.sample.kind]++);
      const rewards = batch.map((b) => b.sample.reward).filter((r): r is number => r !== null);
      const teacherAdv = this.teacherAdvantageStats(batch);
      const base: Omit<StepMetrics, 'grad_norm' | 'step_ms'> = {
        ...lm,
        learning_rate: c.learning_rate,
        mean_reward: rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null,
        samples: counts,
        teacher_advantage: teacherAdv,
        tokens: g.tokens,
      };
      if (!Number.isFinite(g.loss)) {
        g.grads.forEach((t) => t.dispose());
        store.recordSkippedStep(step, 'the loss is not finite', base, ids, Date.now());
        this.lastStep = step;
        this.log(`step ${step} skipped: the loss is ${g.loss}; the adapter is unchanged`);
        return;
      }
      const info = this.optimizer!.apply(g.grads, c.learning_rate);
      const metrics: StepMetrics = { ...base, grad_norm: info.gradNorm, step_ms: performance.now() - t0 };
      if (info.skipped) {
        store.recordSkippedStep(step, 'the gradients are not finite', metrics, ids, Date.now());
        this.lastStep = step;
        this.log(`step ${step} skipped: non-finite gradient norm; the adapter is unchanged`);
        return;
      }
      const version = store.maxVersion() + 1;
      const id = checkpointId(step);
      const lora = {
        r: adapter.config.r,
        alpha: adapter.config.alpha,
        targets: [...adapter.config.targets],
        dropout: adapter.config.dropout,
      };
      saveCheckpoint(
        this.opts.dataDir,
        id,
        adapter,
        this.optimizer!,
        { id, step, adapter_version: version, parent_id: this.liveCheckpoint, metrics, lora },
        this.model.name,
      );
      const now = Date.now();
      store.commitStep({
        step,
        version,
        checkpoint: { id, step, adapterVersion: version, parentId: this.liveCheckpoint, createdAt: now, metrics, samples: counts, lora },
        sampleIds: ids,
        now,
      });
      this.lastStep = step;
      this.liveVersion = version;
      this.liveCheckpoint = id;
      this.opts.emit(this.adapterEvent());
      this.applyRetention();
      this.log(
        `step ${step}: loss ${metrics.loss.toFixed(4)}, ${counts.total} samples, ${g.tokens} tokens, ${metrics.step_ms.toFixed(0)} ms -> adapter version ${version}`,
      );
    } catch (err) {
      store.releaseBatch(ids);
      throw err;
    }
  }

  private teacherAdvantageStats(batch: Array<{ sample: StoredSample; turn: StoredTurn }>): StepMetrics['teacher_advantage'] {
    const d: number[] = [];
    for (const { sample, turn } of batch) {
      if (!sample.teacherLogprobs) continue;
      sample.teacherLogprobs.forEach((t, i) => {
        const x = t - turn.responseLogprobs[i];
        if (Number.isFinite(x)) d.push(x);
      });
    }
    if (!d.length) return null;
    const mean = d.reduce((a, b) => a + b, 0) / d.length;
    const std = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / d.length);
    return { mean, std };
  }

  /** Token sequences, masks, advantages and per-token extras for computeGradients. */
  private async trainBatchOf(batch: Array<{ sample: StoredSample; turn: StoredTurn }>): Promise<TrainBatch> {
    const c = this.config;
    const rkl = c.opd_loss === 'topk_reverse_kl';
    const ids: number[][] = [];
    const mask: number[][] = [];
    const weights: number[][] = [];
    const old: number[][] = [];
    const rklWeight: number[][] = [];
    const topIds: number[][] = [];
    const topLps: number[][] = [];
    const K = c.opd_top_k;
    for (const { sample, turn } of batch) {
      const P = turn.promptIds.length;
      const R = turn.responseIds.length;
      const useRklForOpd = rkl && sample.teacherTopIds !== null;
      const adv = tokenAdvantages(
        { reward: sample.reward, teacherLogprobs: useRklForOpd ? null : sample.teacherLogprobs, oldLogprobs: turn.responseLogprobs },
        { wRl: c.w_rl, wOpd: c.w_opd, opdClip: c.opd_clip },
      );
      const pad = (xs: number[]) => [...new Array<number>(P).fill(0), ...xs];
      ids.push([...turn.promptIds, ...turn.responseIds]);
      mask.push(pad(new Array<number>(R).fill(1)));
      weights.push(pad(adv));
      old.push(pad(turn.responseLogprobs));
      rklWeight.push(pad(new Array<number>(R).fill(useRklForOpd ? c.w_opd : 0)));
      if (rkl) {
        const sampleK = sample.topK ?? K;
        const ti = new Array<number>((P + R) * K).fill(0);
        const tl = new Array<number>((P + R) * K).fill(-1e9);
        if (useRklForOpd && sampleK === K) {
          for (let j = 0; j < R * K; j++) {
            ti[P * K + j] = sample.teacherTopIds![j];
            tl[P * K + j] = sample.teacherTopLogprobs![j];
          }
        }
        topIds.push(ti);
        topLps.push(tl);
      }
    }
    const extra: Record<string, number[][]> = { old, rklWeight };
    if (effectiveKlCoef(c) > 0) {
      // The reference policy for the KL term is the frozen base model (adapter off).
      const scored = await scoreResponses(
        this.model.lm,
        batch.map(({ turn }) => ({ promptIds: turn.promptIds, responseIds: turn.responseIds })),
      );
      extra.ref = batch.map(({ turn }, i) => [...new Array<number>(turn.promptIds.length).fill(0), ...scored[i].logprobs]);
    }
    return {
      ids,
      mask,
      weights,
      extra,
      ...(rkl ? { extraVectors: { teacherTopIds: { width: K, values: topIds }, teacherTopLogprobs: { width: K, values: topLps } } } : {}),
    };
  }

  private applyRetention(): void {
    const store = this.opts.store;
    const doomed = checkpointsToDelete(store.checkpoints(), this.config.keep_checkpoints, this.liveCheckpoint);
    if (!doomed.length) return;
    store.deleteCheckpointRows(doomed);
    for (const id of doomed) deleteCheckpointDir(this.opts.dataDir, id);
  }

  /** Stops after the current work item and frees the models. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.work?.abort();
    this.wake();
    await this.queue.catch(() => {});
    this.adapter?.dispose();
    this.optimizer?.dispose();
    this.judgeModel?.dispose();
    this.model.dispose();
  }

  /** For tests and tools: where a checkpoint lives. */
  checkpointPath(id: string): string {
    return checkpointDir(this.opts.dataDir, id);
  }

  /** Number of tensors alive (a leak check for tests). */
  static tensorCount(): number {
    return tf.memory().numTensors;
  }
}
