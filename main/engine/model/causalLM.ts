import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '../../util/random.js';
import type { WeightFiles } from '../formats/weightFiles.js';
import { expectedWeights, type ModelConfig } from './config.js';
import {
  decoderBlock,
  layerPackedWeights,
  layerParameters,
  loadLayerWeights,
  type BlockInputs,
  type LayerWeights,
  type TakeProjection,
  type TakeVariable,
} from './decoderBlock.js';
import { PackedWeight, type WeightFormat } from './packedWeight.js';
import type { KVCache } from './kvCache.js';
import { AttentionMask } from './layers/attention.js';
import { matmul } from './layers/matmul.js';
import { gpuContext } from '../backends/webgpu/gpuContext.js';
import { rmsNorm } from './layers/rmsNorm.js';
import { ropeInvFreq, ropeTables, ropeTablesRows } from './layers/rope.js';
import type { LoraAdapter } from './lora.js';
import { shapeSize } from './shapes.js';
import { transpose2d, variableFrom } from './tensorUtil.js';
import { assertWeights, checkAdapterFits, checkTensors, checkWeights, WeightsError } from './weightCheck.js';

export { WeightsError };

/**
 * How projection weights are stored on a GPU backend: 'auto' keeps a checkpoint's F16/BF16
 * weights 16-bit (exactly as stored, half the memory of float32) and float32 ones float32;
 * 'f16'/'bf16' store every projection in that format (rounding float32 checkpoints); 'f32' never
 * packs. CPU backends always use float32. Default: CLAWLOOP_GPU_WEIGHTS, else 'auto'.
 */
export type WeightStorage = 'auto' | 'f32' | WeightFormat;

/** Where each projection weight's 16-bit storage comes from: its format in the file, if 16-bit. */
type StorageOf = (name: string) => WeightFormat | null;

export function weightStorageFromEnv(env: NodeJS.ProcessEnv = process.env): WeightStorage {
  const raw = env.CLAWLOOP_GPU_WEIGHTS?.trim().toLowerCase() || 'auto';
  if (raw === 'auto' || raw === 'f32' || raw === 'f16' || raw === 'bf16') return raw;
  throw new Error(`CLAWLOOP_GPU_WEIGHTS is '${env.CLAWLOOP_GPU_WEIGHTS}'; valid: auto, f32, f16, bf16`);
}

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
  private readonly embed: tf.Variable; // [V, H]
  private readonly lmHeadT: tf.Variable | null; // [H, V], when untied
  private readonly finalNorm: tf.Variable;
  private readonly layers: LayerWeights[];
  private readonly invFreq: Float64Array;
  private tiedHeadT: tf.Tensor2D | null = null;
  private trainable = false;
  private disposed = false;

  private constructor(
    readonly config: ModelConfig,
    take: (name: string) => Float32Array,
    storage16: StorageOf = () => null,
  ) {
    const c = config;
    const v: TakeVariable = (name, shape, transpose = false) => {
      const data = take(name);
      if (transpose) {
        const [out, inp] = shape;
        return variableFrom(transpose2d(data, out, inp), [inp, out], false);
      }
      return variableFrom(data, shape, false);
    };
    const proj: TakeProjection = (name, shape) => {
      const format = storage16(name);
      if (!format) return v(name, shape, true);
      const [out, inp] = shape;
      return PackedWeight.pack(transpose2d(take(name), out, inp), inp, out, format);
    };
    const H = c.hiddenSize;
    this.embed = v('model.embed_tokens.weight', [c.vocabSize, H]);
    this.finalNorm = v('model.norm.weight', [H]);
    this.lmHeadT = c.tieWordEmbeddings ? null : v('lm_head.weight', [c.vocabSize, H], true);
    this.layers = Array.from({ length: c.numLayers }, (_, l) => loadLayerWeights(c, l, v, proj));
    this.invFreq = ropeInvFreq(c);
  }

  /** Which projection weights to keep 16-bit: none off the GPU; else as `storage` says (see WeightStorage). */
  private static storageOf(storage: WeightStorage, fileFormat: (name: string) => string | undefined): StorageOf {
    if (storage === 'f32' || !PackedWeight.supported()) return () => null;
    return (name) => {
      if (storage !== 'auto') return storage;
      const f = fileFormat(name);
      return f === 'BF16' ? 'bf16' : f === 'F16' ? 'f16' : null;
    };
  }

  /**
   * Loads weights from safetensors, one tensor at a time. Every missing, extra or misshapen tensor
   * is reported by name before anything is allocated.
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
    const storage = CausalLM.storageOf(opts.weights ?? weightStorageFromEnv(), (name) => files.get(name)?.dtype);
    return new CausalLM(config, (name) => files.read(name), storage);
  }

  /** Builds a model from Hugging Face-layout tensors in memory. */
  static fromTensors(config: ModelConfig, tensors: Map<string, Float32Array>): CausalLM {
    checkTensors(config, tensors);
    return new CausalLM(config, (name) => tensors.get(name)!);
  }

  /**
   * A freshly initialised model (to train from scratch): normal(0, std) weights, unit norms, zero
   * biases, with the output projections of each block scaled down by 1/√(2·layers) (GPT-2's scheme).
   */
  static random(config: ModelConfig, seed = 0, std = 0.02, opts: { weights?: WeightStorage } = {}): CausalLM {
    const rng = new Rng(seed);
    const residualStd = std / Math.sqrt(2 * config.numLayers);
    const shapes = expectedWeights(config);
    return new CausalLM(config, (name) => {
      const shape = shapes.get(name)!;
      const out = new Float32Array(shapeSize(shape));
      if (name.endsWith('norm.weight')) out.fill(1);
      else if (!name.endsWith('.bias')) {
        const s = name.endsWith('o_proj.weight') || name.endsWith('down_proj.weight') ? residualStd : std;
        for (let i = 0; i < out.length; i++) out[i] = rng.normal() * s;
      }
      return out;
    }, CausalLM.storageOf(opts.weights ?? 'f32', () => 'F32'));
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
    this.assertLive();
    const c = this.config;
    const [B, T] = ids.shape;
    const adapter = opts.adapter ?? null;
    if (adapter) this.checkAdapter(adapter);
    const run: BlockInputs = {
      config: c,
      B,
      T,
      ...this.positions(B, T, opts),
      cache: opts.cache,
      adapter,
      training: opts.training ?? false,
      rng: opts.rng,
    };
    let x: tf.Tensor = tf.gather(this.embed, tf.reshape(ids, [B * T])); // [B·T, H]
    for (let l = 0; l < c.numLayers; l++) x = decoderBlock(x, this.layers[l], l, run);
    return rmsNorm(x, this.finalNorm, c.rmsNormEps) as tf.Tensor2D;
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
    if (!this.lmHeadT && gpuContext()) return tf.matMul(hidden, this.embed, false, true) as tf.Tensor2D;
    return matmul(hidden, this.headMatrix(training)) as tf.Tensor2D;
  }

  /** The output projection [H, V]. A tied head uses a cached transpose of the embedding, except while full fine-tuning. */
  private headMatrix(training: boolean): tf.Tensor {
    if (this.lmHeadT) return this.lmHeadT;
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
   * Every weight, keyed by its Hugging Face name. Projection and lm_head weights are held
   * transposed ([in, out]); {@link exportTensors} converts back.
   */
  parameters(): Map<string, tf.Variable> {
    this.assertLive();
    const out = new Map<string, tf.Variable>();
    out.set('model.embed_tokens.weight', this.embed);
    out.set('model.norm.weight', this.finalNorm);
    if (this.lmHeadT) out.set('lm_head.weight', this.lmHeadT);
    this.layers.forEach((L, l) => layerParameters(L, l, out));
    return out;
  }

  /** The projection weights kept 16-bit on the GPU (frozen), by Hugging Face name, stored [in, out]. */
  packedWeights(): Map<string, PackedWeight> {
    const out = new Map<string, PackedWeight>();
    this.layers.forEach((L, l) => layerPackedWeights(L, l, out));
    return out;
  }

  /** True for parameters stored transposed relative to Hugging Face's layout. */
  static isTransposed(name: string): boolean {
    return name === 'lm_head.weight' || /_proj\.weight$/.test(name);
  }

  /** Weights in Hugging Face layout, to save as model.safetensors. */
  async exportTensors(): Promise<Array<{ name: string; shape: number[]; data: Float32Array }>> {
    const out: Array<{ name: string; shape: number[]; data: Float32Array }> = [];
    // One tensor at a time: a whole model read at once would need its size again in host memory.
    for (const [name, v] of this.parameters()) {
      const data = (await v.data()) as Float32Array;
      if (CausalLM.isTransposed(name)) {
        const [inp, o] = v.shape;
        out.push({ name, shape: [o, inp], data: transpose2d(data, inp, o) });
      } else {
        out.push({ name, shape: [...v.shape], data: Float32Array.from(data) });
      }
    }
    for (const [name, p] of this.packedWeights()) {
      const [inp, o] = p.shape;
      out.push({ name, shape: [o, inp], data: transpose2d(await p.toFloat32(), inp, o) });
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
