import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '../../util/random.js';
import { PROJECTIONS, projectionDims, projectionModule, type ModelConfig, type Projection } from './config.js';
import type { KVCache } from './kvCache.js';
import { attention, type AttentionMask } from './layers/attention.js';
import { project, type WeightLayout } from './layers/linear.js';
import { dropoutMask, loraProject } from './layers/loraProject.js';
import { addLoraUpdate } from './layers/loraUpdate.js';
import { matmul } from './layers/matmul.js';
import { rmsNorm } from './layers/rmsNorm.js';
import { ropeHeads } from './layers/rope.js';
import { swiglu } from './layers/swiglu.js';
import type { LoraAdapter } from './lora.js';
import { PackedWeight } from './packedWeight.js';
import { FUSED, fusable, runFused } from '../ops/fusedKernels.js';

interface ProjWeights {
  /**
   * Hugging Face's Linear weight [out, in], or its transpose [in, out]: see {@link LayerWeights.layout}.
   * On the GPU a checkpoint's 16-bit weights may stay 16-bit (frozen: LoRA only).
   */
  w: tf.Variable | PackedWeight;
  b?: tf.Variable;
}

/** The weights of one decoder block. */
export interface LayerWeights {
  /** How the projection weights are held (the same for every layer of a model). */
  layout: WeightLayout;
  inputNorm: tf.Variable;
  postNorm: tf.Variable;
  qNorm?: tf.Variable;
  kNorm?: tf.Variable;
  proj: Record<Projection, ProjWeights>;
}

/**
 * Makes a variable from the Hugging Face tensor `name` of `shape`; a projection (`projection`
 * true) is held in the model's layout.
 */
export type TakeVariable = (name: string, shape: number[], projection?: boolean) => tf.Variable;

/** Makes a projection weight, held in the model's layout, from the Hugging Face tensor `name` ([out, in]). */
export type TakeProjection = (name: string, shape: number[]) => tf.Variable | PackedWeight;

/** Loads block `l`'s weights under their Hugging Face names. */
export function loadLayerWeights(
  c: ModelConfig,
  l: number,
  v: TakeVariable,
  layout: WeightLayout,
  proj16: TakeProjection = (n, s) => v(n, s, true),
): LayerWeights {
  const p = `model.layers.${l}.`;
  const dims = projectionDims(c);
  const proj = {} as Record<Projection, ProjWeights>;
  for (const name of PROJECTIONS) {
    const base = `${p}${projectionModule(name)}.${name}`;
    proj[name] = { w: proj16(`${base}.weight`, dims[name]) };
    if (c.biases.has(name)) proj[name].b = v(`${base}.bias`, [dims[name][0]]);
  }
  return {
    layout,
    inputNorm: v(`${p}input_layernorm.weight`, [c.hiddenSize]),
    postNorm: v(`${p}post_attention_layernorm.weight`, [c.hiddenSize]),
    qNorm: c.qkNorm ? v(`${p}self_attn.q_norm.weight`, [c.headDim]) : undefined,
    kNorm: c.qkNorm ? v(`${p}self_attn.k_norm.weight`, [c.headDim]) : undefined,
    proj,
  };
}

/** Adds block `l`'s weights to `out` under their Hugging Face names. */
export function layerParameters(L: LayerWeights, l: number, out: Map<string, tf.Variable>): void {
  const p = `model.layers.${l}.`;
  out.set(`${p}input_layernorm.weight`, L.inputNorm);
  out.set(`${p}post_attention_layernorm.weight`, L.postNorm);
  if (L.qNorm) out.set(`${p}self_attn.q_norm.weight`, L.qNorm);
  if (L.kNorm) out.set(`${p}self_attn.k_norm.weight`, L.kNorm);
  for (const name of PROJECTIONS) {
    const base = `${p}${projectionModule(name)}.${name}`;
    const w = L.proj[name].w;
    if (!(w instanceof PackedWeight)) out.set(`${base}.weight`, w);
    if (L.proj[name].b) out.set(`${base}.bias`, L.proj[name].b!);
  }
}

/** Adds block `l`'s 16-bit projection weights to `out` under their Hugging Face names. */
export function layerPackedWeights(L: LayerWeights, l: number, out: Map<string, PackedWeight>): void {
  for (const name of PROJECTIONS) {
    const w = L.proj[name].w;
    if (w instanceof PackedWeight) out.set(`model.layers.${l}.${projectionModule(name)}.${name}.weight`, w);
  }
}

/** What every block of one forward pass shares. */
export interface BlockInputs {
  config: ModelConfig;
  B: number;
  T: number;
  /** RoPE tables for the new positions, and which keys each query sees. */
  cos: tf.Tensor;
  sin: tf.Tensor;
  mask: AttentionMask;
  cache?: KVCache;
  adapter: LoraAdapter | null;
  training: boolean;
  /**
   * Seeds of LoRA dropout, one per layer: a layer run twice with the same seed (activation
   * checkpointing recomputes it) draws the same masks. Absent: unseeded.
   */
  seeds?: readonly number[];
}

/** x·Wᵀ (+ b) with W [out, in], plus the LoRA update (x·A)·B·scale when the adapter targets this projection. */
function linear(x: tf.Tensor, L: LayerWeights, l: number, name: Projection, run: BlockInputs, rng: Rng): tf.Tensor {
  const p = L.proj[name];
  const { adapter } = run;
  const pair = adapter?.get(l, name);
  const rate = run.training && adapter ? adapter.config.dropout : 0;
  const drop = pair && rate > 0 ? dropoutMask(x, rate, rng.fork()) : null;
  // A frozen projection with an adapter: one op that keeps only what the adapter's gradients need.
  const frozen = p.w instanceof PackedWeight || !p.w.trainable;
  if (pair && adapter && frozen && !p.b?.trainable) {
    return loraProject(x, { w: p.w, layout: L.layout, bias: p.b, a: pair.a, b: pair.b, scale: adapter.scale }, drop);
  }
  let y = project(x, p.w, L.layout);
  if (p.b) y = tf.add(y, p.b);
  if (pair && adapter) y = addLoraUpdate(y, matmul(drop ? tf.mul(x, drop) : x, pair.a), pair.b, adapter.scale);
  return y;
}

/** Rows up to which the native backend multiplies 16-bit weights as GEMVs (halfGemm.cc's m <= 8). */
const GEMV_ROWS = 8;

/**
 * `linear` for several projections of the same x. Decoding a few rows with plain weights (no
 * training, no adapter or bias on these projections), a backend with the fused op runs them in
 * one pass over all their weights: one wake-up of the kernel threads instead of one a matrix.
 * Same values as `linear` gives for each; the fused op has no gradient, hence no training here.
 */
function linearMany(x: tf.Tensor, L: LayerWeights, l: number, names: Projection[], run: BlockInputs, rng: Rng): tf.Tensor[] {
  const ws = names.map((n) => L.proj[n]);
  const plain =
    !run.training &&
    L.layout === 'outIn' &&
    x.rank === 2 &&
    x.shape[0] <= GEMV_ROWS &&
    names.every((n) => !run.adapter?.get(l, n)) &&
    ws.every((p) => !p.b && !(p.w instanceof PackedWeight));
  if (plain && fusable(FUSED.projectMany, x)) {
    return runFused<tf.Tensor[]>(FUSED.projectMany, { x, ...Object.fromEntries(ws.map((p, i) => [`w${i}`, p.w as tf.Tensor])) });
  }
  return names.map((n) => linear(x, L, l, n, run, rng));
}

/**
 * One pre-norm decoder block: x + attention(norm(x)), then + SwiGLU MLP(norm(x)). Appends the
 * block's keys and values to the cache, if any.
 * @param x [B·T, H]
 * @returns [B·T, H]
 */
export function decoderBlock(x: tf.Tensor, L: LayerWeights, l: number, run: BlockInputs): tf.Tensor {
  const { config: c, B, T, cos, sin } = run;
  const eps = c.rmsNormEps;
  const rng = new Rng(run.seeds?.[l]);
  const h = rmsNorm(x, L.inputNorm, eps);
  const [q0, k0, v1] = linearMany(h, L, l, ['q_proj', 'k_proj', 'v_proj'], run, rng);
  let q = tf.reshape(q0, [B, T, c.numHeads, c.headDim]);
  let k = tf.reshape(k0, [B, T, c.numKvHeads, c.headDim]);
  const v0 = tf.reshape(v1, [B, T, c.numKvHeads, c.headDim]);
  if (L.qNorm && L.kNorm) {
    q = rmsNorm(q, L.qNorm, eps);
    k = rmsNorm(k, L.kNorm, eps);
  }
  const qr = ropeHeads(q as tf.Tensor4D, cos, sin, false); // [B, heads, T, D]
  let kT = ropeHeads(k as tf.Tensor4D, cos, sin, true); // [B, kv, D, T]
  let v = tf.transpose(v0, [0, 2, 1, 3]) as tf.Tensor4D; // [B, kv, T, D]
  if (run.cache) ({ kT, v } = run.cache.append(l, kT, v));
  const attn = attention(qr, kT, v, run.mask, run.training); // [B, T, heads·D]
  x = tf.add(x, linear(tf.reshape(attn, [B * T, c.numHeads * c.headDim]), L, l, 'o_proj', run, rng));
  const h2 = rmsNorm(x, L.postNorm, eps);
  const [gate, up] = linearMany(h2, L, l, ['gate_proj', 'up_proj'], run, rng);
  return tf.add(x, linear(swiglu(gate, up), L, l, 'down_proj', run, rng));
}
