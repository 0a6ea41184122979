import * as tf from '@tensorflow/tfjs-core';
import { PROJECTIONS, projectionModule, type Projection } from '../../../model/config.js';
import type { CausalLM } from '../../../model/causalLM.js';
import { PackedWeight } from '../../../model/packedWeight.js';
import type { GpuBuffer } from '../../../gpu/gpuTypes.js';
import type { GpuContext } from '../gpuContext.js';
import { GRID_INDEX, grid } from '../kernels/wgslCommon.js';
import { dispatchOf, readStaging, stagingBuffer, storageBuffer, type Binding, type CopyingEncoder } from './decodeGpu.js';
import type { GemvFormat } from './gemvWgsl.js';

/*
 * The model's weights as the decoder binds them: the tfjs buffers the model already holds (no
 * copy), the biases concatenated per fused product, and the LM head in 16 bits when the model's
 * projections are 16-bit and the head's values are exactly representable (checked on the GPU).
 */

/** A weight matrix's buffer (its exact bytes) and how its values are stored. */
export interface GemvWeight {
  buffer: Binding;
  format: GemvFormat;
}

export interface LayerBuffers {
  inputNorm: Binding;
  postNorm: Binding;
  qNorm?: Binding;
  kNorm?: Binding;
  w: Record<Projection, GemvWeight>;
  /** Bias of [q | k | v], of [gate | up], of o and of down: zeros where the model has none. */
  qkvBias: GpuBuffer;
  mlpBias: GpuBuffer;
  oBias: GpuBuffer;
  downBias: GpuBuffer;
}

export interface DecodeWeights {
  /** The token embedding [V, H], float32. */
  embed: GpuBuffer;
  finalNorm: Binding;
  /** The LM head: held [V, H] (rows: tied to the embedding) or [H, V] (columns). */
  head: GemvWeight & { rows: boolean };
  /** A zero bias of the head's V outputs (the column GEMV adds one). */
  headBias: GpuBuffer;
  layers: LayerBuffers[];
  /** Buffers made here (the others are the model's; a packed head is kept with its model), destroyed with the decoder. */
  owned: GpuBuffer[];
}

/** Submits what tfjs has recorded, so that commands the decoder submits next run after it. */
export function flushTfjs(ctx: GpuContext): void {
  const b = ctx.backend;
  if (!b.commandEncoder) return;
  b.endComputePassEncoder();
  b.submitQueue();
}

/** The GPU buffer of a tensor on the 'webgpu' backend, bound to exactly its bytes. */
export function tensorBinding(ctx: GpuContext, t: tf.Tensor, bytesPerValue = 4): Binding {
  ctx.backend.uploadToGPU(t.dataId);
  const buffer = ctx.backend.tensorMap.get(t.dataId).resource;
  if (!buffer) throw new Error('webgpu decode: a weight has no GPU buffer');
  return { buffer, size: Math.max(4, t.size * bytesPerValue) };
}

function weightOf(ctx: GpuContext, w: tf.Tensor | PackedWeight): GemvWeight {
  if (w instanceof PackedWeight) return { buffer: tensorBinding(ctx, w.words), format: w.format };
  return { buffer: tensorBinding(ctx, w), format: 'f32' };
}

/** The model's tensor `name`: a packed 16-bit projection or a float32 variable. */
function tensorNamed(lm: CausalLM, name: string): tf.Tensor | PackedWeight | undefined {
  return lm.packedWeights().get(name) ?? lm.parameters().get(name);
}

/** One buffer of several biases side by side (zeros where the model has none), copied on the GPU. */
function biasBuffer(ctx: GpuContext, enc: CopyingEncoder, lm: CausalLM, names: string[], lengths: number[]): GpuBuffer {
  const out = storageBuffer(ctx.device, lengths.reduce((a, b) => a + b, 0) * 4, new Float32Array(lengths.reduce((a, b) => a + b, 0)));
  let at = 0;
  for (let i = 0; i < names.length; i++) {
    const b = lm.parameters().get(names[i]);
    if (b) {
      const src = tensorBinding(ctx, b);
      enc.copyBufferToBuffer('buffer' in src ? src.buffer : src, 0, out, at * 4, lengths[i] * 4);
    }
    at += lengths[i];
  }
  return out;
}

function layerBuffers(ctx: GpuContext, enc: CopyingEncoder, lm: CausalLM, l: number, owned: GpuBuffer[]): LayerBuffers {
  const c = lm.config;
  const p = `model.layers.${l}.`;
  const name = (proj: Projection, what: string) => `${p}${projectionModule(proj)}.${proj}.${what}`;
  const w = {} as Record<Projection, GemvWeight>;
  for (const proj of PROJECTIONS) w[proj] = weightOf(ctx, tensorNamed(lm, name(proj, 'weight'))!);
  const param = (n: string) => {
    const t = lm.parameters().get(p + n);
    return t ? tensorBinding(ctx, t) : undefined;
  };
  const q = c.numHeads * c.headDim;
  const kv = c.numKvHeads * c.headDim;
  const I = c.intermediateSize;
  const bias = (projs: Projection[], lengths: number[]) =>
    biasBuffer(
      ctx,
      enc,
      lm,
      projs.map((x) => name(x, 'bias')),
      lengths,
    );
  const made = {
    qkvBias: bias(['q_proj', 'k_proj', 'v_proj'], [q, kv, kv]),
    mlpBias: bias(['gate_proj', 'up_proj'], [I, I]),
    oBias: bias(['o_proj'], [c.hiddenSize]),
    downBias: bias(['down_proj'], [c.hiddenSize]),
  };
  owned.push(...Object.values(made));
  return {
    inputNorm: param('input_layernorm.weight')!,
    postNorm: param('post_attention_layernorm.weight')!,
    qNorm: param('self_attn.q_norm.weight'),
    kNorm: param('self_attn.k_norm.weight'),
    w,
    ...made,
  };
}

/** The 16-bit format the model's projections share, or null when they are float32 (or mixed). */
export function projectionFormat(lm: CausalLM): GemvFormat | null {
  const formats = new Set([...lm.packedWeights().values()].map((w) => w.format));
  const packed = lm.packedWeights().size === lm.config.numLayers * 7;
  return packed && formats.size === 1 ? [...formats][0] : null;
}

/**
 * The head's values packed two per u32 word in `format`, when every value is exactly a 16-bit
 * number of that format (so the logits equal the float32 head's); else null. One pass on the GPU,
 * counting inexact values, and one 4-byte read.
 */
async function packHead(ctx: GpuContext, src: Binding, values: number, format: 'f16' | 'bf16'): Promise<GpuBuffer | null> {
  const device = ctx.device;
  const words = values / 2;
  const dst = storageBuffer(device, words * 4);
  const bad = storageBuffer(device, 4, new Uint32Array(1));
  const check =
    format === 'f16'
      ? `let w = pack2x16float(vec2<f32>(a, b)); if (any(unpack2x16float(w) != vec2<f32>(a, b))) { atomicAdd(&Bad[0], 1u); }`
      : `let w = (bitcast<u32>(a) >> 16u) | (bitcast<u32>(b) & 0xffff0000u); if (((bitcast<u32>(a) | bitcast<u32>(b)) & 0xffffu) != 0u) { atomicAdd(&Bad[0], 1u); }`;
  const code = `
@group(0) @binding(0) var<storage, read> Src: array<f32>;
@group(0) @binding(1) var<storage, read_write> Dst: array<u32>;
@group(0) @binding(2) var<storage, read_write> Bad: array<atomic<u32>>;
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (${GRID_INDEX}) * 256u + lid;
  if (i >= ${words}u) { return; }
  let a = Src[2u * i];
  let b = Src[2u * i + 1u];
  ${check}
  Dst[i] = w;
}`;
  const d = dispatchOf(device, code, `decode_pack_head_${format}`, [src, dst, bad], grid(Math.ceil(words / 256), ctx.maxWorkgroups));
  const staging = stagingBuffer(device, 4);
  const enc = device.createCommandEncoder() as CopyingEncoder;
  const pass = enc.beginComputePass();
  pass.setPipeline(d.pipeline);
  pass.setBindGroup(0, d.group);
  pass.dispatchWorkgroups(...d.workgroups);
  pass.end();
  enc.copyBufferToBuffer(bad, 0, staging, 0, 4);
  flushTfjs(ctx);
  device.queue.submit([enc.finish()]);
  const inexact = new Uint32Array(await readStaging(staging, 4))[0];
  staging.destroy();
  bad.destroy();
  if (inexact === 0) return dst;
  dst.destroy();
  return null;
}

/** 16-bit copies of frozen models' heads (a model with packed projections cannot be trained in full). */
const packedHeads = new WeakMap<CausalLM, Promise<GpuBuffer | null>>();

/** The LM head as the decoder binds it: 16-bit where the projections are and the values allow. */
async function headWeight(ctx: GpuContext, lm: CausalLM): Promise<DecodeWeights['head']> {
  const params = lm.parameters();
  const untied = params.get('lm_head.weight');
  const t = untied ?? params.get('model.embed_tokens.weight')!;
  const plain = { ...weightOf(ctx, t), rows: !untied };
  const format = projectionFormat(lm);
  if (!format || format === 'f32') return plain;
  let packed = packedHeads.get(lm);
  if (!packed) packedHeads.set(lm, (packed = packHead(ctx, plain.buffer, t.size, format)));
  const buffer = await packed;
  return buffer ? { buffer, format, rows: !untied } : plain;
}

/**
 * Collects what the decoder binds; the bias copies are recorded into `enc` (submit it before the
 * first step). The model must stay loaded while the decoder is used.
 */
export async function decodeWeights(ctx: GpuContext, lm: CausalLM, enc: CopyingEncoder): Promise<DecodeWeights> {
  const c = lm.config;
  const params = lm.parameters();
  const head = await headWeight(ctx, lm);
  const owned: GpuBuffer[] = [];
  const layers: LayerBuffers[] = [];
  for (let l = 0; l < c.numLayers; l++) layers.push(layerBuffers(ctx, enc, lm, l, owned));
  const headBias = storageBuffer(ctx.device, c.vocabSize * 4, new Float32Array(c.vocabSize));
  owned.push(headBias);
  const e = tensorBinding(ctx, params.get('model.embed_tokens.weight')!);
  return {
    embed: 'buffer' in e ? e.buffer : e,
    finalNorm: tensorBinding(ctx, params.get('model.norm.weight')!),
    head,
    headBias,
    layers,
    owned,
  };
}
