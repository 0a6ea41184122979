import * as tf from '@tensorflow/tfjs-core';
import { expectedWeights, PROJECTIONS, projectionDims, projectionModule, type ModelConfig, type Projection } from './config.js';
import type { KVCache } from './kvCache.js';
import { attentionMask, groupedAttention, rowAttentionMask } from './layers/attention.js';
import { matmul } from './layers/matmul.js';
import { rmsNorm } from './layers/rmsNorm.js';
import { applyRope, ropeInvFreq, ropeTables, ropeTablesRows } from './layers/rope.js';
import type { LoraAdapter } from './lora.js';
import { Rng } from './random.js';
import type { WeightFiles } from './safetensors.js';
import { shapeSize, transpose2d, variableFrom } from './tensorUtil.js';
import { assertWeights, checkWeights, WeightsError } from './modelFolder.js';

export { WeightsError };


interface ProjWeights {
  /** [in, out]: the transpose of Hugging Face's Linear weight, so the forward pass is a plain matmul. */
  w: tf.Variable;
  b?: tf.Variable;
}

interface LayerWeights {
  inputNorm: tf.Variable;
  postNorm: tf.Variable;
  qNorm?: tf.Variable;
  kNorm?: tf.Variable;
  proj: Record<Projection, ProjWeights>;
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

/** Tensors that are buffers in some checkpoints and never weights. */

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
  ) {
    const c = config;
    const v = (name: string, shape: number[], transpose = false): tf.Variable => {
      const data = take(name);
      if (transpose) {
        const [out, inp] = shape;
        return variableFrom(transpose2d(data, out, inp), [inp, out], false);
      }
      return variableFrom(data, shape, false);
    };
    const H = c.hiddenSize;
    this.embed = v('model.embed_tokens.weight', [c.vocabSize, H]);
    this.finalNorm = v('model.norm.weight', [H]);
    this.lmHeadT = c.tieWordEmbeddings ? null : v('lm_head.weight', [c.vocabSize, H], true);
    const dims = projectionDims(c);
    this.layers = [];
    for (let l = 0; l < c.numLayers; l++) {
      const p = `model.layers.${l}.`;
      const proj = {} as Record<Projection, ProjWeights>;
      for (const name of PROJECTIONS) {
        const base = `${p}${projectionModule(name)}.${name}`;
        proj[name] = { w: v(`${base}.weight`, dims[name], true) };
        if (c.biases.has(name)) proj[name].b = v(`${base}.bias`, [dims[name][0]]);
      }
      this.layers.push({
        inputNorm: v(`${p}input_layernorm.weight`, [H]),
        postNorm: v(`${p}post_attention_layernorm.weight`, [H]),
        qNorm: c.qkNorm ? v(`${p}self_attn.q_norm.weight`, [c.headDim]) : undefined,
        kNorm: c.qkNorm ? v(`${p}self_attn.k_norm.weight`, [c.headDim]) : undefined,
        proj,
      });
    }
    this.invFreq = ropeInvFreq(c);
  }

  /**
   * Loads weights from safetensors, one tensor at a time. Every missing, extra or misshapen tensor
   * is reported by name before anything is allocated.
   */
  static fromWeightFiles(config: ModelConfig, files: WeightFiles, opts: { log?: (line: string) => void } = {}): CausalLM {
    const { problems, ignored } = checkWeights(config, files);
    assertWeights(config, problems);
    if (ignored.length)
      opts.log?.(`clawloop: ignoring ${ignored.length} tensor(s) the model does not use: ${ignored.slice(0, 5).join(', ')}`);
    return new CausalLM(config, (name) => files.read(name));
  }

  /** Builds a model from Hugging Face-layout tensors in memory. */
  static fromTensors(config: ModelConfig, tensors: Map<string, Float32Array>): CausalLM {
    for (const [name, shape] of expectedWeights(config)) {
      const t = tensors.get(name);
      if (!t) throw new WeightsError(`missing tensor '${name}'`);
      if (t.length !== shapeSize(shape))
        throw new WeightsError(`tensor '${name}' has ${t.length} values; expected ${JSON.stringify(shape)}`);
    }
    return new CausalLM(config, (name) => tensors.get(name)!);
  }

  /**
   * A freshly initialised model (to train from scratch): normal(0, std) weights, unit norms, zero
   * biases, with the output projections of each block scaled down by 1/√(2·layers) (GPT-2's scheme).
   */
  static random(config: ModelConfig, seed = 0, std = 0.02): CausalLM {
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
    });
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
    const offset = opts.cache?.length ?? 0;
    const S = offset + T;
    const adapter = opts.adapter ?? null;
    if (adapter) this.checkAdapter(adapter);
    const training = opts.training ?? false;
    const eps = c.rmsNormEps;
    let cos: tf.Tensor;
    let sin: tf.Tensor;
    let mask: tf.Tensor2D | tf.Tensor4D;
    if (opts.rows) {
      const { start, pad } = opts.rows;
      if (start.length !== B || pad.length !== B) throw new RangeError(`rows describe ${start.length} rows; the batch has ${B}`);
      ({ cos, sin } = ropeTablesRows(this.invFreq, start, T));
      mask = tf.tensor4d(rowAttentionMask(T, S, start, pad, c.slidingWindow), [B, 1, T, S]);
    } else {
      ({ cos, sin } = ropeTables(this.invFreq, offset, T));
      mask = tf.tensor2d(attentionMask(T, S, offset, c.slidingWindow), [T, S]);
    }

    const linear = (x: tf.Tensor, l: number, name: Projection): tf.Tensor => {
      const p = this.layers[l].proj[name];
      let y = matmul(x, p.w);
      if (p.b) y = tf.add(y, p.b);
      const pair = adapter?.get(l, name);
      if (pair && adapter) {
        let xin = x;
        if (training && adapter.config.dropout > 0) xin = tf.dropout(x, adapter.config.dropout, undefined, (opts.rng ?? new Rng()).fork());
        y = tf.add(y, tf.mul(matmul(matmul(xin, pair.a), pair.b), adapter.scale));
      }
      return y;
    };

    let x: tf.Tensor = tf.gather(this.embed, tf.reshape(ids, [B * T])); // [B·T, H]
    for (let l = 0; l < c.numLayers; l++) {
      const L = this.layers[l];
      const h = rmsNorm(x, L.inputNorm, eps);
      let q = tf.reshape(linear(h, l, 'q_proj'), [B, T, c.numHeads, c.headDim]);
      let k = tf.reshape(linear(h, l, 'k_proj'), [B, T, c.numKvHeads, c.headDim]);
      const v0 = tf.reshape(linear(h, l, 'v_proj'), [B, T, c.numKvHeads, c.headDim]);
      if (L.qNorm && L.kNorm) {
        q = rmsNorm(q, L.qNorm, eps);
        k = rmsNorm(k, L.kNorm, eps);
      }
      const qr = applyRope(tf.transpose(q, [0, 2, 1, 3]) as tf.Tensor4D, cos, sin); // [B, heads, T, D]
      const kr = applyRope(tf.transpose(k, [0, 2, 1, 3]) as tf.Tensor4D, cos, sin); // [B, kv, T, D]
      let kT = tf.transpose(kr, [0, 1, 3, 2]) as tf.Tensor4D; // [B, kv, D, T]
      let v = tf.transpose(v0, [0, 2, 1, 3]) as tf.Tensor4D; // [B, kv, T, D]
      if (opts.cache) ({ kT, v } = opts.cache.append(l, kT, v));
      const attn = groupedAttention(qr, kT, v, mask); // [B, T, heads·D]
      x = tf.add(x, linear(tf.reshape(attn, [B * T, c.numHeads * c.headDim]), l, 'o_proj'));
      const h2 = rmsNorm(x, L.postNorm, eps);
      const gate = linear(h2, l, 'gate_proj');
      const up = linear(h2, l, 'up_proj');
      x = tf.add(x, linear(tf.mul(tf.mul(gate, tf.sigmoid(gate)), up), l, 'down_proj')); // SwiGLU
    }
    return rmsNorm(x, this.finalNorm, eps) as tf.Tensor2D;
  }

  /** Projects hidden rows [N, H] to logits [N, V]. */
  head(hidden: tf.Tensor, training = false): tf.Tensor2D {
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
    this.layers.forEach((L, l) => {
      const p = `model.layers.${l}.`;
      out.set(`${p}input_layernorm.weight`, L.inputNorm);
      out.set(`${p}post_attention_layernorm.weight`, L.postNorm);
      if (L.qNorm) out.set(`${p}self_attn.q_norm.weight`, L.qNorm);
      if (L.kNorm) out.set(`${p}self_attn.k_norm.weight`, L.kNorm);
      for (const name of PROJECTIONS) {
        const base = `${p}${projectionModule(name)}.${name}`;
        out.set(`${base}.weight`, L.proj[name].w);
        if (L.proj[name].b) out.set(`${base}.bias`, L.proj[name].b!);
      }
    });
    return out;
  }

  /** True for parameters stored transposed relative to Hugging Face's layout. */
  static isTransposed(name: string): boolean {
    return name === 'lm_head.weight' || /_proj\.weight$/.test(name);
  }

  /** Weights in Hugging Face layout, to save as model.safetensors. */
  exportTensors(): Array<{ name: string; shape: number[]; data: Float32Array }> {
    const out: Array<{ name: string; shape: number[]; data: Float32Array }> = [];
    for (const [name, v] of this.parameters()) {
      const data = v.dataSync() as Float32Array;
      if (CausalLM.isTransposed(name)) {
        const [inp, o] = v.shape;
        out.push({ name, shape: [o, inp], data: transpose2d(data, inp, o) });
      } else {
        out.push({ name, shape: [...v.shape], data: Float32Array.from(data) });
      }
    }
    return out;
  }

  private readonly checkedAdapters = new WeakSet<LoraAdapter>();
  private checkAdapter(a: LoraAdapter): void {
    if (this.checkedAdapters.has(a)) return;
    const m = a.modelConfig;
    const c = this.config;
    if (
      m.numLayers !== c.numLayers ||
      m.hiddenSize !== c.hiddenSize ||
      m.intermediateSize !== c.intermediateSize ||
      m.numHeads * m.headDim !== c.numHeads * c.headDim ||
      m.numKvHeads * m.headDim !== c.numKvHeads * c.headDim
    ) {
      throw new WeightsError('the LoRA adapter was made for a model of a different shape');
    }
    this.checkedAdapters.add(a);
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.weightsChanged();
    for (const v of this.parameters().values()) v.dispose();
    this.disposed = true;
  }

  private assertLive(): void {
    if (this.disposed) throw new WeightsError('this model has been disposed');
  }
}
