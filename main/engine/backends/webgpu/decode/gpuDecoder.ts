import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '../../../../util/random.js';
import type { CausalLM } from '../../../model/causalLM.js';
import { KVCache } from '../../../model/kvCache.js';
import { ropeInvFreq } from '../../../model/layers/rope.js';
import { gpuContext, type GpuContext } from '../gpuContext.js';
import { grid } from '../kernels/wgslCommon.js';
import type { GpuBuffer } from '../../../gpu/gpuTypes.js';
import { dispatchOf, storageBuffer, type CopyingEncoder, type Dispatch } from './decodeGpu.js';
import { DecodeSession, type GpuSampling, type Pick } from './decodeSession.js';
import { decodeWeights, flushTfjs, tensorBinding } from './decodeWeights.js';
import { cacheFillWgsl } from './decodeWgsl.js';
import { decodeUnsupported } from './decodeSupport.js';

export type { GpuSampling, Pick };

/** A KV cache that keeps the full per-layer tensors of its last append, for the decoder to copy. */
class PrefillCache extends KVCache {
  readonly full: Array<{ kT: tf.Tensor4D; v: tf.Tensor4D } | null>;
  constructor(numLayers: number) {
    super(numLayers);
    this.full = new Array(numLayers).fill(null);
  }
  override append(layer: number, kT: tf.Tensor4D, v: tf.Tensor4D): { kT: tf.Tensor4D; v: tf.Tensor4D } {
    const r = super.append(layer, kT, v);
    this.full[layer] = r;
    return r;
  }
}

/**
 * Decoding at batch 1 outside tfjs, on the 'webgpu' backend: the prompt is prefilled by the tfjs
 * model (into {@link prefillCache}), its keys and values are copied into a preallocated cache,
 * and every token after that is one command buffer of ClawLoop's own kernels (see DecodeSession)
 * with one submit and an 8-byte read: the token id and its log-prob, sampled on the GPU.
 */
export class GpuDecoder {
  private readonly invFreq: Float64Array;
  private readonly rng: Rng;
  private prefill: PrefillCache | null;
  private pos = 0;
  private closed = false;

  private constructor(
    private readonly ctx: GpuContext,
    private readonly lm: CausalLM,
    private readonly session: DecodeSession,
    private readonly sampling: GpuSampling,
    seed: number | undefined,
  ) {
    this.invFreq = ropeInvFreq(lm.config);
    this.rng = new Rng(seed);
    this.prefill = new PrefillCache(lm.config.numLayers);
  }

  /** Why this model cannot decode on the GPU path for `capacity` positions, or null when it can. */
  static unsupported(lm: CausalLM, capacity: number): string | null {
    const ctx = gpuContext();
    if (!ctx) return 'the active backend is not webgpu';
    return decodeUnsupported(ctx, lm, capacity);
  }

  /**
   * A decoder for one generation of at most `capacity` positions (prompt and new tokens). Throws
   * when {@link unsupported} gives a reason.
   */
  static async open(lm: CausalLM, capacity: number, sampling: GpuSampling, seed?: number): Promise<GpuDecoder> {
    const why = GpuDecoder.unsupported(lm, capacity);
    if (why) throw new Error(`webgpu decode: ${why}`);
    const ctx = gpuContext()!;
    const enc = ctx.device.createCommandEncoder() as CopyingEncoder;
    ctx.device.pushErrorScope('validation');
    const weights = await decodeWeights(ctx, lm, enc);
    const session = new DecodeSession(ctx.device, lm.config, weights, capacity);
    const error = await ctx.device.popErrorScope();
    if (error) {
      session.dispose();
      throw new Error(
        `webgpu decode: setting up the decoder failed: ${error.message}. Set CLAWLOOP_GPU_DECODE=0 to decode on the tfjs path.`,
      );
    }
    flushTfjs(ctx);
    ctx.device.queue.submit([enc.finish()]);
    return new GpuDecoder(ctx, lm, session, sampling, seed);
  }

  /** The cache to prefill the prompt into (with the model's `hidden` or `forward`). */
  get prefillCache(): KVCache {
    if (!this.prefill) throw new Error('webgpu decode: the prompt was already prefilled');
    return this.prefill;
  }

  /** Dispatches per decoded token (all layers, the final norm, the head and the sampler). */
  get dispatchesPerToken(): number {
    return this.session.dispatchesPerToken;
  }

  /**
   * The token after the prompt, from the prefill's final-normed hidden states `hidden` [T, H]
   * (the last row is used): copies the prefill's keys and values into the decoder's cache, then
   * runs the head and the sampler.
   */
  async first(hidden: tf.Tensor): Promise<Pick> {
    const cache = this.prefill;
    if (!cache) throw new Error('webgpu decode: first() was already called');
    const T = cache.length;
    if (T === 0 || T > this.session.capacity)
      throw new RangeError(`webgpu decode: the prompt has ${T} positions; the decoder holds ${this.session.capacity}`);
    const length = storageBuffer(this.ctx.device, 4, Uint32Array.of(T));
    const fill = cache.full.map((f, l) => this.fillDispatch(f!, l, T, length));
    this.pos = T;
    this.session.writeStep(T, this.invFreq, this.sampling, this.draw());
    const enc = this.ctx.device.createCommandEncoder() as CopyingEncoder;
    this.session.recordFirst(enc, tensorBinding(this.ctx, hidden), fill);
    flushTfjs(this.ctx);
    try {
      return await this.session.submit(enc);
    } finally {
      length.destroy();
      cache.dispose();
      this.prefill = null;
    }
  }

  /** Feeds `id` (the last token chosen) and returns the next pick. */
  async next(id: number): Promise<Pick> {
    if (this.prefill) throw new Error('webgpu decode: call first() after the prefill before next()');
    if (this.closed) throw new Error('webgpu decode: the decoder is closed');
    if (this.pos >= this.session.capacity)
      throw new RangeError(`webgpu decode: the cache holds ${this.session.capacity} positions; all are used`);
    if (!(Number.isInteger(id) && id >= 0 && id < this.lm.config.vocabSize))
      throw new RangeError(`webgpu decode: token id ${id} is outside the vocabulary`);
    this.session.writeStep(this.pos, this.invFreq, this.sampling, this.draw());
    const enc = this.ctx.device.createCommandEncoder() as CopyingEncoder;
    this.session.recordNext(enc, id);
    flushTfjs(this.ctx);
    const pick = await this.session.submit(enc);
    this.pos++;
    return pick;
  }

  private draw(): number {
    return this.sampling.temperature > 0 ? this.rng.uniform() : 0;
  }

  private fillDispatch(f: { kT: tf.Tensor4D; v: tf.Tensor4D }, l: number, T: number, length: GpuBuffer): Dispatch {
    const c = this.lm.config;
    const n = T * c.numKvHeads * c.headDim;
    return dispatchOf(
      this.ctx.device,
      cacheFillWgsl(c.numKvHeads, c.headDim),
      'decode_cache_fill',
      [tensorBinding(this.ctx, f.kT), tensorBinding(this.ctx, f.v), this.session.keys[l], this.session.values[l], length],
      grid(Math.ceil(n / 256), this.ctx.maxWorkgroups),
    );
  }

  /** Frees the cache and the decoder's buffers (the model's weights stay). */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.prefill?.dispose();
    this.prefill = null;
    this.session.dispose();
  }
}
