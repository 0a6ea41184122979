import * as tf from '@tensorflow/tfjs-core';
import type { GpuContext } from '../../../main/engine/backends/webgpu/gpuContext.js';
import { gpuMemory, releaseGpuPool, resetGpuPeak } from '../../../main/engine/backends/webgpu/gpuMemory.js';
import { CausalLM } from '../../../main/engine/model/causalLM.js';
import type { ModelConfig } from '../../../main/engine/model/config.js';
import { KVCache } from '../../../main/engine/model/kvCache.js';
import { LoraAdapter } from '../../../main/engine/model/lora.js';
import { readFloats } from '../../../main/engine/model/tensorRead.js';
import { AdamW } from '../../../main/engine/training/optimizer.js';
import { computeGradients, crossEntropyLoss } from '../../../main/engine/training/train.js';
import { benchTokens } from '../gpuBenchShapes.js';
import type { Counts, DispatchRecord, GpuRecorder } from './gpuRecorder.js';
import type { ProfileShapes } from './profileShapes.js';

/** One profiled phase of the model: its dispatches, counters and memory. */
export interface PhaseProfile {
  name: string;
  /** Tokens the phase processes (prefill: B·T, decode: new tokens, LoRA: B·T). */
  tokens: number;
  /** Steps the counters are divided by besides layers (decode: tokens; else 1). */
  steps: number;
  wallMs: number;
  records: DispatchRecord[];
  counts: Counts;
  /** Bytes held by live tensors at most, and held by the pool (live + kept free) at most. */
  inUsePeak: number;
  reservedPeak: number;
}

/** The largest bytes-in-use the pool reaches (tracked by wrapping its acquireBuffer). */
class InUsePeak {
  peak = 0;
  constructor(ctx: GpuContext) {
    const pool = ctx.backend.bufferManager;
    const acquire = pool.acquireBuffer.bind(pool);
    pool.acquireBuffer = (...args) => {
      const b = acquire(...args);
      this.peak = Math.max(this.peak, pool.numBytesUsed);
      return b;
    };
  }
}

function argmax(v: Float32Array): number {
  let best = 0;
  for (let i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
  return best;
}

export class ModelPhases {
  private readonly peak: InUsePeak;
  /** Bytes in use once the model's weights are on the GPU. */
  readonly weightBytes: number;

  private constructor(
    private readonly ctx: GpuContext,
    private readonly rec: GpuRecorder,
    readonly lm: CausalLM,
    private readonly shapes: ProfileShapes,
  ) {
    this.peak = new InUsePeak(ctx);
    this.weightBytes = gpuMemory()?.inUse ?? NaN;
  }

  /** A random model of `shapes.model` with BF16 projection weights (as Qwen3's checkpoints store them). */
  static create(ctx: GpuContext, rec: GpuRecorder, config: ModelConfig, shapes: ProfileShapes): ModelPhases {
    releaseGpuPool();
    return new ModelPhases(ctx, rec, CausalLM.random(config, 0, 0.02, { weights: 'bf16' }), shapes);
  }

  /** Runs `body` as a profiled phase, after `warm` (not profiled: it compiles the pipelines). */
  private async phase(
    name: string,
    tokens: number,
    steps: number,
    warm: () => Promise<void>,
    body: () => Promise<void>,
  ): Promise<PhaseProfile> {
    await warm();
    releaseGpuPool();
    resetGpuPeak();
    this.peak.peak = gpuMemory()?.inUse ?? 0;
    this.rec.reset();
    const t0 = performance.now();
    await body();
    const wallMs = performance.now() - t0;
    const counts = { ...this.rec.counts };
    const records = await this.rec.collect();
    return { name, tokens, steps, wallMs, records, counts, inUsePeak: this.peak.peak, reservedPeak: gpuMemory()?.peak ?? NaN };
  }

  async prefill(): Promise<PhaseProfile> {
    const [B, T] = this.shapes.prefill;
    const ids = benchTokens(B, T, this.lm.config.vocabSize).flat();
    const run = async () => void (await readFloats(tf.tidy(() => this.lm.forward(tf.tensor2d(ids, [B, T], 'int32'), { lastOnly: true }))));
    return this.phase(`prefill ${B}×${T}`, B * T, 1, run, run);
  }

  /** Greedy decoding at batch 1 after a prompt, as generation does it (logits read every token); only the new tokens are profiled. */
  async decode(): Promise<PhaseProfile> {
    const { prompt, tokens } = this.shapes.decode;
    const step = (cache: KVCache, ids: number[]) =>
      readFloats(tf.tidy(() => this.lm.forward(tf.tensor2d(ids, [1, ids.length], 'int32'), { cache, lastOnly: true })));
    let cache = new KVCache(this.lm.config.numLayers);
    let next = 0;
    const start = async () => {
      cache.dispose();
      cache = new KVCache(this.lm.config.numLayers);
      next = argmax(await step(cache, benchTokens(1, prompt, this.lm.config.vocabSize)[0]));
    };
    const generate = async (n: number) => {
      for (let i = 0; i < n; i++) next = argmax(await step(cache, [next]));
    };
    try {
      return await this.phase(
        `decode ${tokens} tokens (batch 1, prompt ${prompt})`,
        tokens,
        tokens,
        async () => {
          await start();
          await generate(2);
          await start();
        },
        () => generate(tokens),
      );
    } finally {
      cache.dispose();
    }
  }

  /** One LoRA step (gradients of every projection's adapter, then AdamW). */
  async loraStep(): Promise<PhaseProfile> {
    const { batch, seq, r, alpha } = this.shapes.train;
    const ids = benchTokens(batch, seq, this.lm.config.vocabSize);
    const data = { ids, mask: ids.map((s) => s.map((_, t) => (t > 0 ? 1 : 0))) };
    const adapter = LoraAdapter.create(this.lm.config, { r, alpha }, 1);
    const opt = new AdamW(adapter.variables(), { lr: 1e-4 });
    const step = async () => {
      await opt.apply((await computeGradients(this.lm, data, crossEntropyLoss, { adapter })).grads);
      await [...adapter.variables().values()][0].data(); // the update itself has run
    };
    try {
      return await this.phase(`LoRA step ${batch}×${seq}, r ${r}`, batch * seq, 1, step, step);
    } finally {
      opt.dispose();
      adapter.dispose();
    }
  }

  dispose(): void {
    this.lm.dispose();
  }
}
