import type { ModelConfig } from '../../../model/config.js';
import type { GpuBuffer, GpuDevice } from '../../../gpu/gpuTypes.js';
import { grid } from '../kernels/wgslCommon.js';
import {
  dispatchOf,
  readStaging,
  stagingBuffer,
  storageBuffer,
  type Binding,
  type CopyingEncoder,
  type Dispatch,
  type MappableBuffer,
} from './decodeGpu.js';
import { decodeAttentionWgsl, rmsNormWgsl, ropeCacheWgsl, STEP_HEADER_BYTES, type HeadShape } from './decodeWgsl.js';
import type { DecodeWeights, GemvWeight } from './decodeWeights.js';
import { columnGemvWgsl, columnThreads, columnWorkgroups, ROWS_PER_WORKGROUP, rowGemvWgsl, type ColumnGemvKind } from './gemvWgsl.js';
import { sampleWgsl } from './sampleWgsl.js';

/** A chosen token and its log-prob under the model (temperature 1). */
export interface Pick {
  id: number;
  logprob: number;
}

/** How the next token is chosen (validated by the caller, as the CPU Sampler does). */
export interface GpuSampling {
  temperature: number;
  topP: number;
  topK: number;
}

/** Bytes read back per token: the id and the log-prob. */
export const PICK_BYTES = 8;

/**
 * The buffers and recorded dispatches of one generation at batch 1: the activations, a KV cache
 * of `capacity` positions per layer (written in place), and a bind group per dispatch, made once.
 * A token is one command buffer: the embedding row copied in, 8 dispatches per layer, the final
 * norm, the LM head and the sampler, then 8 bytes copied out; one submit and one 8-byte read.
 */
export class DecodeSession {
  private readonly device: GpuDevice;
  private readonly buffers: GpuBuffer[] = [];
  private readonly x: GpuBuffer;
  private readonly h: GpuBuffer;
  private readonly step: GpuBuffer;
  private readonly result: GpuBuffer;
  private readonly staging: MappableBuffer;
  /** Per layer: keys and values [capacity, kv heads, D]. */
  readonly keys: GpuBuffer[] = [];
  readonly values: GpuBuffer[] = [];
  private readonly body: Dispatch[] = [];
  /** The LM head and the sampler (the first token reads the prefill's hidden state). */
  private readonly pickTail: Dispatch[];
  private readonly finalNorm: Dispatch;

  constructor(
    device: GpuDevice,
    private readonly c: ModelConfig,
    private readonly w: DecodeWeights,
    readonly capacity: number,
  ) {
    this.device = device;
    const D = c.headDim;
    const q = c.numHeads * D;
    const kv = c.numKvHeads * D;
    const f32 = (n: number) => this.own(storageBuffer(device, n * 4));
    this.x = f32(c.hiddenSize);
    this.h = f32(c.hiddenSize);
    const qkv = f32(q + 2 * kv);
    const qr = f32(q);
    const attn = f32(q);
    const act = f32(c.intermediateSize);
    const logits = f32(c.vocabSize);
    const scratch = f32(c.numHeads * capacity);
    this.step = f32(STEP_HEADER_BYTES / 4 + D);
    this.result = f32(4);
    this.staging = stagingBuffer(device, PICK_BYTES);
    const shape: HeadShape = { numHeads: c.numHeads, numKvHeads: c.numKvHeads, headDim: D, capacity };
    for (let l = 0; l < c.numLayers; l++) {
      this.keys.push(f32(capacity * kv));
      this.values.push(f32(capacity * kv));
      const L = w.layers[l];
      const norms = L.qNorm && L.kNorm ? [L.qNorm, L.kNorm] : [];
      this.body.push(
        this.norm(this.x, L.inputNorm),
        this.gemv('concat', [L.w.q_proj, L.w.k_proj, L.w.v_proj], [q, kv, kv], c.hiddenSize, this.h, L.qkvBias, qkv),
        this.dispatch(
          ropeCacheWgsl(shape, norms.length > 0, c.rmsNormEps),
          'decode_rope_cache',
          [qkv, this.step, qr, this.keys[l], this.values[l], ...norms],
          c.numHeads + c.numKvHeads,
        ),
        this.dispatch(
          decodeAttentionWgsl(shape),
          'decode_attention',
          [qr, this.keys[l], this.values[l], this.step, scratch, attn],
          c.numHeads,
        ),
        this.gemv('residual', [L.w.o_proj], [c.hiddenSize], q, attn, L.oBias, this.x),
        this.norm(this.x, L.postNorm),
        this.gemv('swiglu', [L.w.gate_proj, L.w.up_proj], [c.intermediateSize], c.hiddenSize, this.h, L.mlpBias, act),
        this.gemv('residual', [L.w.down_proj], [c.hiddenSize], c.intermediateSize, act, L.downBias, this.x),
      );
    }
    this.finalNorm = this.norm(this.x, w.finalNorm);
    const head = w.head.rows
      ? this.dispatch(
          rowGemvWgsl(w.head.format, c.hiddenSize, c.vocabSize),
          'decode_head_rows',
          [this.h, w.head.buffer, logits],
          Math.ceil(c.vocabSize / ROWS_PER_WORKGROUP),
        )
      : this.gemv('concat', [w.head], [c.vocabSize], c.hiddenSize, this.h, w.headBias, logits);
    this.pickTail = [head, this.dispatch(sampleWgsl(c.vocabSize), 'decode_sample', [logits, this.step, this.result], 1)];
  }

  /** Dispatches per token, all layers and the tail. */
  get dispatchesPerToken(): number {
    return this.body.length + 1 + this.pickTail.length;
  }

  private own(b: GpuBuffer): GpuBuffer {
    this.buffers.push(b);
    return b;
  }

  private dispatch(code: string, label: string, buffers: Binding[], workgroups: number): Dispatch {
    return dispatchOf(this.device, code, label, buffers, grid(workgroups, 65535));
  }

  private norm(x: GpuBuffer, g: Binding): Dispatch {
    return this.dispatch(rmsNormWgsl(this.c.hiddenSize, this.c.rmsNormEps), 'decode_rms_norm', [x, g, this.h], 1);
  }

  private gemv(kind: ColumnGemvKind, ws: GemvWeight[], N: number[], K: number, x: GpuBuffer, bias: GpuBuffer, y: GpuBuffer): Dispatch {
    const format = ws[0].format;
    if (ws.some((w) => w.format !== format))
      throw new Error(`webgpu decode: a fused product mixes weight formats (${ws.map((w) => w.format)})`);
    const TC = columnThreads(Math.min(...N), format);
    const groups = N.reduce((a, n) => a + columnWorkgroups(n, format, TC), 0);
    const code = columnGemvWgsl({ kind, format, K, N, TC });
    return this.dispatch(code, `decode_gemv_${kind}_${format}`, [x, ...ws.map((w) => w.buffer), bias, y], groups);
  }

  /** Writes the step buffer: position, attention's first position, sampling, this position's RoPE table. */
  writeStep(pos: number, invFreq: Float64Array, s: GpuSampling, draw: number): void {
    const half = invFreq.length;
    const buf = new ArrayBuffer(STEP_HEADER_BYTES + 2 * half * 4);
    const v = new DataView(buf);
    const window = this.c.slidingWindow;
    v.setUint32(0, pos, true);
    v.setUint32(4, window ? Math.max(0, pos - window + 1) : 0, true);
    v.setUint32(8, s.topK, true);
    v.setFloat32(16, s.temperature, true);
    v.setFloat32(20, s.topP, true);
    v.setFloat32(24, draw, true);
    const rope = new Float32Array(buf, STEP_HEADER_BYTES);
    for (let i = 0; i < half; i++) {
      // float32 angle, as the tfjs path (and PyTorch) computes positions · inv_freq
      const a = Math.fround(pos * Math.fround(invFreq[i]));
      rope[i] = Math.cos(a);
      rope[half + i] = Math.sin(a);
    }
    this.device.queue.writeBuffer(this.step, 0, buf);
  }

  /**
   * Records the token after the prompt into `enc`: the prefill's last hidden state (final-normed)
   * copied in, the LM head, the sampler. `before` runs first (filling the cache from the prefill).
   */
  recordFirst(enc: CopyingEncoder, hidden: Binding, before: Dispatch[]): void {
    const src = 'buffer' in hidden ? hidden.buffer : hidden;
    enc.copyBufferToBuffer(src, ('buffer' in hidden ? hidden.size : src.size) - this.c.hiddenSize * 4, this.h, 0, this.c.hiddenSize * 4);
    this.record(enc, [...before, ...this.pickTail]);
  }

  /** Records one token's step after feeding `id` (its position is in the step buffer). */
  recordNext(enc: CopyingEncoder, id: number): void {
    const H = this.c.hiddenSize;
    enc.copyBufferToBuffer(this.w.embed, id * H * 4, this.x, 0, H * 4);
    this.record(enc, [...this.body, this.finalNorm, ...this.pickTail]);
  }

  private record(enc: CopyingEncoder, dispatches: Dispatch[]): void {
    const pass = enc.beginComputePass();
    for (const d of dispatches) {
      pass.setPipeline(d.pipeline);
      pass.setBindGroup(0, d.group);
      pass.dispatchWorkgroups(...d.workgroups);
    }
    pass.end();
    enc.copyBufferToBuffer(this.result, 0, this.staging, 0, PICK_BYTES);
  }

  /** Submits `enc` and reads the pick back (8 bytes). */
  async submit(enc: CopyingEncoder): Promise<Pick> {
    this.device.queue.submit([enc.finish()]);
    const r = await readStaging(this.staging, PICK_BYTES);
    const u = new Uint32Array(r);
    return { id: u[0], logprob: new Float32Array(r)[1] };
  }

  dispose(): void {
    for (const b of this.buffers) b.destroy();
    this.staging.destroy();
    for (const b of this.w.owned) b.destroy();
  }
}
