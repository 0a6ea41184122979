import { AdamW, LoraAdapter, type ModelConfig } from '../engine/index.js';
import type { TrainingConfig } from '../protocol/training.js';
import { optimizerFile } from './checkpointFiles.js';
import { loadCheckpointAdapter } from './loadCheckpointAdapter.js';
import type { AdapterEvent } from './trainerEvents.js';

/** AdamW settings of a training configuration; betas 0.9 / 0.98 as docs/learning-loop.md §5 recommends for LoRA. */
export function adamConfig(c: TrainingConfig) {
  return { lr: c.learning_rate, weightDecay: c.weight_decay, maxGradNorm: c.max_grad_norm, beta1: 0.9, beta2: 0.98 };
}

/**
 * The policy the trainer trains and the server serves: a LoRA adapter with its optimizer (none
 * while the base model is live), the adapter version clients see, and the checkpoint it came from.
 * The version and checkpoint change only through {@link LivePolicy.goLive}, which announces them.
 */
export class LivePolicy {
  private trained: { adapter: LoraAdapter; optimizer: AdamW } | null = null;

  constructor(
    private liveVersion: number,
    private liveCheckpoint: string | null,
    /** Receives the announcement of each version that goes live (the server hot-swaps to it). */
    private readonly announce: (e: AdapterEvent) => void,
  ) {}

  /** The adapter being trained and served; null: the base model. */
  get adapter(): LoraAdapter | null {
    return this.trained?.adapter ?? null;
  }

  /** The adapter's AdamW state; null with the base model. */
  get optimizer(): AdamW | null {
    return this.trained?.optimizer ?? null;
  }

  /** The adapter version clients see. */
  get version(): number {
    return this.liveVersion;
  }

  /** The checkpoint the live adapter came from; null: the base model. */
  get checkpoint(): string | null {
    return this.liveCheckpoint;
  }

  /**
   * The one way a version goes live: a step's checkpoint (gate off or passed), a rollback, a
   * checkpoint left pending by a restart. The trained adapter must already be this checkpoint's
   * (restore, or the step that made it); it is announced with `reason`.
   */
  async goLive(version: number, checkpoint: string | null, reason: AdapterEvent['reason']): Promise<void> {
    this.liveVersion = version;
    this.liveCheckpoint = checkpoint;
    this.announce(await this.event(reason));
  }

  /**
   * At start, when the live checkpoint does not load: the base model serves under the same version.
   * Nothing is announced, as nothing was served yet (the server asks for the adapter at start).
   */
  startFromBase(): void {
    this.clear();
    this.liveCheckpoint = null;
  }

  /** Takes a checkpoint's adapter and optimizer state in place of the current ones. */
  restore(dataDir: string, id: string, model: ModelConfig, config: TrainingConfig): void {
    const adapter = loadCheckpointAdapter(dataDir, id, model);
    const optimizer = new AdamW(adapter.variables(), adamConfig(config));
    optimizer.load(optimizerFile(dataDir, id));
    this.clear();
    this.trained = { adapter, optimizer };
  }

  /** The adapter and optimizer to train, created from the configuration when there are none yet. */
  trainable(model: ModelConfig, c: TrainingConfig, seed: number): { adapter: LoraAdapter; optimizer: AdamW } {
    if (!this.trained) {
      const adapter = LoraAdapter.create(
        model,
        { r: c.lora_rank, alpha: c.lora_alpha, targets: c.lora_targets, dropout: c.lora_dropout },
        seed,
      );
      this.trained = { adapter, optimizer: new AdamW(adapter.variables(), adamConfig(c)) };
    }
    return this.trained;
  }

  /** Frees the adapter and optimizer: the base model is the policy. */
  clear(): void {
    this.trained?.adapter.dispose();
    this.trained?.optimizer.dispose();
    this.trained = null;
  }

  /** The announcement of the live version (and why it goes live), with the adapter's tensors in PEFT layout. */
  async event(reason: AdapterEvent['reason']): Promise<AdapterEvent> {
    const head = { type: 'adapter' as const, version: this.version, checkpointId: this.checkpoint, reason };
    if (!this.adapter) return { ...head, lora: null, tensors: null };
    const tensors = new Map<string, Float32Array>();
    for (const [n, t] of await this.adapter.toTensors()) tensors.set(n, t.data);
    return { ...head, lora: this.adapter.config, tensors };
  }
}
