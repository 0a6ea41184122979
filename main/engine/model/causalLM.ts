import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '../../util/random.js';
import type { WeightFiles } from '../formats/weightFiles.js';
import { expectedWeights, type ModelConfig } from './config.js';
import { decoderBlock, layerPackedWeights, layerParameters, loadLayerWeights, type BlockInputs, type LayerWeights } from './decoderBlock.js';
import type { KVCache } from './kvCache.js';
import { AttentionMask } from './layers/attention.js';
import { preferredLayout, project, type WeightLayout } from './layers/linear.js';
import { matmul } from './layers/matmul.js';
import { rmsNorm } from './layers/rmsNorm.js';
import { ropeInvFreq, ropeTables, ropeTablesRows } from './layers/rope.js';
import type { LoraAdapter } from './lora.js';
import { shapeSize } from './shapes.js';
import { transpose2d } from './tensorUtil.js';
import { mappedWeight } from '../backends/native/mappedWeights.js';
import { gpuContext } from '../backends/webgpu/gpuContext.js';
import { PackedWeight } from './packedWeight.js';
import { assertWeights, checkAdapterFits, checkTensors, checkWeights, WeightsError } from './weightCheck.js';
import { weightTakers, type WeightSource } from './weightSource.js';
import { storageOf, weightStorageFromEnv, type WeightStorage } from './weightStorage.js';

export { WeightsError, weightStorageFromEnv, type WeightStorage };

export interface ForwardOptions {
  /** Appends this call's keys/values; positions continue from the cache's length. */
  cache?: KVCache;
  /** LoRA adapter to apply; null or absent runs the base model. */
  adapter?: LoraAdapter | null;
  /** Compute logits for the last position only (prefill for generation). Default false. */
  lastOnly?: boolean;
  /** Training mode: LoRA dropout is active and a tied head keeps its gradient path. Default false. */
  training?: boolean;
  /** Seeds LoRA dropout in training mode. */
  rng?: Rng;
  /**
   * Rows of different lengths sharing one (left-padded) cache, for batched decoding: row b's
   * new tokens start at position `start[b]`, and its first `pad[b]` cache slots are padding.
   * Needs `cache`. Default: every row at the cache's length, nothing padded.
   */
  rows?: { start: readonly number[]; pad: readonly number[] };
}

/**
 * A Llama-family decoder (Llama, Mistral, Qwen2, Qwen3) in tfjs: token ids in, logits out.
 * Weights are tfjs Variables, frozen unless {@link setTrainable} turns full fine-tuning on.
 */
export class CausalLM {
  /** How projection and lm_head weights are held (see WeightLayout); chosen for the backend at load. */
  readonly layout: WeightLayout;
  private readonly embed: tf.Variable; // [V, H]
  private readonly lmHead: tf.Variable | null; // [V, H] (outIn) or [H, V] (inOut), when untied
  private readonly finalNorm: tf.Variable;
  private readonly layers: LayerWeights[];
  private readonly invFreq: Float64Array;
  private tiedHeadT: tf.Tensor2D | null = null;
  private trainable = false;
  private disposed = false;

  private constructor(
    readonly config: ModelConfig,
    source: WeightSource,
  ) {
    const c = config;
    this.layout = preferredLayout();
    const { v, proj } = weightTakers(source, this.layout);
    const H = c.hiddenSize;
    this.embed = v('model.embed_tokens.weight', [c.vocabSize, H]);
    this.finalNorm = v('model.norm.weight', [H]);
    this.lmHead = c.tieWordEmbeddings ? null : v('lm_head.weight', [c.vocabSize, H], true);
    this.layers = Array.from({ length: c.numLayers }, (_, l) => loadLayerWeights(c, l, v, this.layout, proj));
    this.invFreq = ropeInvFreq(c);
  }

  /**
   * Loads weights from safetensors. Every missing, extra or misshapen tensor is reported by name
   * before anything is allocated. On the native backend the matrices are memory-mapped as they
   * are on disk (BF16 and F16 stay 16-bit; the pages are the OS cache's); elsewhere, and for
   * vectors, they are read one at a time as float32 (on the GPU, projections may be packed 16-bit:
   * see WeightStorage).
   */
  static fromWeightFiles(
    config: ModelConfig,
    files: WeightFiles,
    opts: { log?: (line: string) => void; weights?: WeightStorage } = {},
  ): CausalLM {
    const { problems, ignored } = checkWeights(config, files);
    assertWeights(config, problems);
    if (ignored.length)
      opts.log?.(`clawloop: ignoring ${ignored.length} tensor(s) the model does not use: ${ignored.slice(0, 5).join(', ')}`);
    return new CausalLM(config, {
      direct: (name) => {
        const e = files.get(name)!;
        return e.shape.length === 2 ? mappedWeight(e) : null;
      },
      float32: (name) => files.read(name),
      storage16: storageOf(opts.weights ?? weightStorageFromEnv(), (name) => files.get(name)?.dtype),
    });
  }

  /** Builds a model from Hugging Face-layout tensors in memory. */
  static fromTensors(config: ModelConfig, tensors: Map<string, Float32Array>): CausalLM {
    checkTensors(config, tensors);
    return new CausalLM(config, { float32: (name) => tensors.get(name)! });
  }

  /**
   * A freshly initialised model (to train from scratch): normal(0, std) weights, unit norms, zero
   * biases, with the output projections of each block scaled down by 1/√(2·layers) (GPT-2's scheme).
   */
  static random(config: ModelConfig, seed = 0, std = 0.02, opts: { weights?: WeightStorage } = {}): CausalLM {
    const rng = new Rng(seed);
    const residualStd = std / Math.sqrt(2 * config.numLayers);
    const shapes = expectedWeights(config);
    return new CausalLM(config, { float32: (name) => {
      const shape = shapes.get(name)!;
      const out = new Float32Array(shapeSize(shape));
      if (name.endsWith('norm.weight')) out.fill(1);
      else if (!name.endsWith('.bias')) {
        const s = name.endsWith('o_proj.weight') || name.endsWith('down_proj.weight') ? residualStd : std;
        for (let i = 0; i < out.length; i++) out[i] = rng.normal() * s;
      }
      return out;
    }, storage16: storageOf(opts.weights ?? 'f32', () => 'F32') });
  }

  /**
   * Logits for token ids.
   * @param ids int32 [B, T]
   * @returns [B, T, V], or [B, 1, V] with `lastOnly`.
   */
  forward(ids: tf.Tensor2D, opts: ForwardOptions = {}): tf.Tensor3D {
    const [B, T] = ids.shape;
    let h = this.hidden(ids, opts); // [B·T, H]
    let rows = T;
    if (opts.lastOnly && T > 1) {
      const H = this.config.hiddenSize;
      h = tf.reshape(tf.slice(tf.reshape(h, [B, T, H]), [0, T - 1, 0], [B, 1, H]), [B, H]);
      rows = 1;
    }
    return tf.reshape(this.head(h, opts.training ?? false), [B, rows, this.config.vocabSize]);
  }

  /**
   * The final-normalised hidden state of every position, flattened: [B·T, H]. Callers that need
   * logits for a few positions only (scoring, training) gather rows first and then call {@link head}.
   */
  hidden(ids: tf.Tensor2D, opts: ForwardOptions = {}): tf.Tensor2D {
    const start = this.begin(ids, opts);
    let x: tf.Tensor = start.x;
    try {
      for (let l = 0; l < this.config.numLayers; l++) {
        // Each layer's intermediates are freed as soon as it ends, not with the caller's scope: a
        // forward pass then holds one layer's activations, not all of them. (A gradient tape keeps
        // its own references to what the backward pass needs.)
        const next = tf.tidy(() => this.layer(l, x, start.run));
        x.dispose();
        x = next;
      }
      return this.normalize(x);
    } finally {
      // Also when a layer throws: a batcher that survives a failed step must not leak the mask.
      start.run.mask.dispose();
    }
  }

  /**
   * The first step of a forward pass: the token embeddings [B·T, H] and what every layer shares
   * (positions, mask, adapter, per-layer dropout seeds drawn from `opts.rng`). With {@link layer}
   * and {@link normalize}, for callers that run the layers one by one (activation checkpointing).
   */
  begin(ids: tf.Tensor2D, opts: ForwardOptions = {}): { x: tf.Tensor2D; run: BlockInputs } {
    this.assertLive();
    const c = this.config;
    const [B, T] = ids.shape;
    const adapter = opts.adapter ?? null;
    if (adapter) this.checkAdapter(adapter);
    // Training always draws per-layer dropout seeds, so a layer recomputed for its backward pass
    // (activation checkpointing) gets the masks its forward pass had.
    const rng = opts.rng ?? (opts.training ? new Rng() : undefined);
    const run: BlockInputs = {
      config: c,
      B,
      T,
      ...this.positions(B, T, opts),
      cache: opts.cache,
      adapter,
      training: opts.training ?? false,
      seeds: rng ? Array.from({ length: c.numLayers }, () => rng.fork()) : undefined,
    };
    return { x: tf.tidy(() => this.embedTokens(ids)), run };
  }

  /** The embeddings of token ids [B, T]: [B·T, H]. */
  embedTokens(ids: tf.Tensor2D): tf.Tensor2D {
    return tf.gather(this.embed, tf.reshape(ids, [ids.size])) as tf.Tensor2D;
  }

  /** Decoder layer `l` on x [B·T, H] (see {@link begin}). */
  layer(l: number, x: tf.Tensor, run: BlockInputs): tf.Tensor {
    return decoderBlock(x, this.layers[l], l, run);
  }

  /** The final RMSNorm: [B·T, H]. */
  normalize(x: tf.Tensor): tf.Tensor2D {
    return rmsNorm(x, this.finalNorm, this.config.rmsNormEps) as tf.Tensor2D;
  }

  /** Layer `l`'s weights by Hugging Face name (for full fine-tuning layer by layer). */
  layerParameters(l: number): Map<string, tf.Variable> {
    const out = new Map<string, tf.Variable>();
    layerParameters(this.layers[l], l, out);
    return out;
  }

  /**
   * RoPE tables and the attention mask of T new positions: per row with `opts.rows`, else every
   * row continuing from the cache's length.
   */
  private positions(B: number, T: number, opts: ForwardOptions): Pick<BlockInputs, 'cos' | 'sin' | 'mask'> {
    const offset = opts.cache?.length ?? 0;
    const S = offset + T;
    const window = this.config.slidingWindow;
    if (opts.rows) {
      const { start, pad } = opts.rows;
      if (start.length !== B || pad.length !== B) throw new RangeError(`rows describe ${start.length} rows; the batch has ${B}`);
      return { ...ropeTablesRows(this.invFreq, start, T), mask: new AttentionMask(T, S, start, pad, window, true) };
    }
    const start = new Array<number>(B).fill(offset);
    const pad = new Array<number>(B).fill(0);
    return { ...ropeTables(this.invFreq, offset, T), mask: new AttentionMask(T, S, start, pad, window, false) };
  }

  /**
   * Projects hidden rows [N, H] to logits [N, V]. On the GPU a tied head reads the embedding
   * directly (h·Eᵀ: its kernels read a transposed operand as fast), so no [H, V] copy is kept.
   */
  head(hidden: tf.Tensor, training = false): tf.Tensor2D {
    if (this.layout === 'outIn') return project(hidden, this.lmHead ?? this.embed, 'outIn') as tf.Tensor2D;
    if (!this.lmHead && gpuContext()) return tf.matMul(hidden, this.embed, false, true) as tf.Tensor2D;
    return matmul(hidden, this.headMatrix(training)) as tf.Tensor2D;
  }

  /**
   * The output projection as a [V, H] matrix in the model's layout (the embedding when tied): for
   * callers that compute parts of the head themselves (fused vocabulary statistics).
   */
  headWeight(training = false): { w: tf.Tensor; layout: WeightLayout } {
    if (this.layout === 'outIn') return { w: this.lmHead ?? this.embed, layout: 'outIn' };
    return { w: this.headMatrix(training), layout: 'inOut' };
  }

  /** The output projection [H, V] (inOut layout). A tied head uses a cached transpose of the embedding, except while full fine-tuning. */
  private headMatrix(training: boolean): tf.Tensor {
    if (this.lmHead) return this.lmHead;
    if (training && this.trainable) return tf.transpose(this.embed);
    if (!this.tiedHeadT) this.tiedHeadT = tf.keep(tf.transpose(this.embed) as tf.Tensor2D);
    return this.tiedHeadT;
  }

  /** Turns full fine-tuning on or off (whether base weights receive gradients). */
  setTrainable(on: boolean): void {
    if (on && this.packedWeights().size) {
      throw new WeightsError('full fine-tuning needs float32 weights; this model keeps 16-bit projections on the GPU: load it with CLAWLOOP_GPU_WEIGHTS=f32');
    }
    this.trainable = on;
    for (const v of this.parameters().values()) v.trainable = on;
  }

  /** Call after changing weights in place (an optimizer step) so derived caches are rebuilt. */
  weightsChanged(): void {
    this.tiedHeadT?.dispose();
    this.tiedHeadT = null;
  }

  /**
   * Every weight, keyed by its Hugging Face name. In the inOut layout, projection and lm_head
   * weights are held transposed ([in, out]); {@link exportTensors} converts back.
   */
  parameters(): Map<string, tf.Variable> {
    this.assertLive();
    const out = new Map<string, tf.Variable>();
    out.set('model.embed_tokens.weight', this.embed);
    out.set('model.norm.weight', this.finalNorm);
    if (this.lmHead) out.set('lm_head.weight', this.lmHead);
    this.layers.forEach((L, l) => layerParameters(L, l, out));
    return out;
  }

  /** The projection weights kept 16-bit on the GPU (frozen), by Hugging Face name, held in the model's layout. */
  packedWeights(): Map<string, PackedWeight> {
    const out = new Map<string, PackedWeight>();
    this.layers.forEach((L, l) => layerPackedWeights(L, l, out));
    return out;
  }

  /** True for parameters this model holds transposed relative to Hugging Face's layout. */
  isTransposed(name: string): boolean {
    return this.layout === 'inOut' && (name === 'lm_head.weight' || /_proj\.weight$/.test(name));
  }

  /** Weights in Hugging Face layout, to save as model.safetensors. */
  async exportTensors(): Promise<Array<{ name: string; shape: number[]; data: Float32Array }>> {
    const out: Array<{ name: string; shape: number[]; data: Float32Array }> = [];
    // One tensor at a time: a whole model read at once would need its size again in host memory.
    for (const [name, v] of this.parameters()) {
      const data = (await v.data()) as Float32Array;
      if (this.isTransposed(name)) {
        const [inp, o] = v.shape;
        out.push({ name, shape: [o, inp], data: transpose2d(data, inp, o) });
      } else {
        out.push({ name, shape: [...v.shape], data: Float32Array.from(data) });
      }
    }
    for (const [name, p] of this.packedWeights()) {
      const [rows, cols] = p.shape;
      const data = await p.toFloat32();
      out.push(this.isTransposed(name) ? { name, shape: [cols, rows], data: transpose2d(data, rows, cols) } : { name, shape: [rows, cols], data });
    }
    return out;
  }

  private readonly checkedAdapters = new WeakSet<LoraAdapter>();
  private checkAdapter(a: LoraAdapter): void {
    if (this.checkedAdapters.has(a)) return;
    checkAdapterFits(a.modelConfig, this.config);
    this.checkedAdapters.add(a);
  }

  dispose(): void {
    if (this.disposed) return;
    this.weightsChanged();
    for (const v of this.parameters().values()) v.dispose();
    for (const p of this.packedWeights().values()) p.dispose();
    this.disposed = true;
  }

  private assertLive(): void {
    if (this.disposed) throw new WeightsError('this model has been disposed');
  }
}
