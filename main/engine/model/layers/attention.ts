import * as tf from '@tensorflow/tfjs-core';
import { FUSED, fusable, runFused } from '../../ops/fusedKernels.js';
import { matmul } from './matmul.js';

/** Additive mask value: finite, so masked rows never produce NaN in softmax or its gradient. */
const MASKED = -1e9;

/**
 * Additive attention mask [T, S] for T queries at absolute positions offset..offset+T-1 over S keys
 * at positions 0..S-1: a key is visible when it is not in the future and, with a sliding window,
 * when queryPos − keyPos < window.
 */
export function attentionMask(T: number, S: number, offset: number, window: number | null): Float32Array {
  const m = new Float32Array(T * S);
  for (let t = 0; t < T; t++) {
    const q = offset + t;
    for (let s = 0; s < S; s++) {
      const visible = s <= q && (window === null || q - s < window);
      if (!visible) m[t * S + s] = MASKED;
    }
  }
  return m;
}

/**
 * Per-row additive masks [B, 1, T, S] for a batch whose rows sit in one cache with different
 * left padding: row b's cache slot s holds position s − pad[b] (slots below pad[b] are padding),
 * and its T queries are at positions start[b]..start[b]+T−1.
 */
export function rowAttentionMask(
  T: number,
  S: number,
  start: readonly number[],
  pad: readonly number[],
  window: number | null,
): Float32Array {
  const B = start.length;
  const m = new Float32Array(B * T * S);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const q = start[b] + t;
      for (let s = 0; s < S; s++) {
        const k = s - pad[b];
        const visible = k >= 0 && k <= q && (window === null || q - k < window);
        if (!visible) m[(b * T + t) * S + s] = MASKED;
      }
    }
  }
  return m;
}

/**
 * Grouped-query attention without repeating K/V: the G = heads/kvHeads query heads that share a
 * KV head are stacked along the time axis, so one batched matmul serves the whole group.
 *
 * q: [B, heads, T, D]; kT: [B, kvHeads, D, S]; v: [B, kvHeads, S, D]; mask: [T, S] additive, or
 * [B, 1, T, S] for a mask per row. Returns [B, T, heads·D].
 */
export function groupedAttention(q: tf.Tensor4D, kT: tf.Tensor4D, v: tf.Tensor4D, mask: tf.Tensor2D | tf.Tensor4D): tf.Tensor3D {
  const [B, H, T, D] = q.shape;
  const kvH = kT.shape[1];
  const G = H / kvH;
  // [B, H, T, D] is [B, kvH, G, T, D] in memory, hence [B, kvH, G·T, D]: heads kv·G..kv·G+G−1 share KV head kv.
  const qg = tf.reshape(q, [B, kvH, G * T, D]);
  const probs = maskedSoftmax(matmul(qg, kT) as tf.Tensor4D, mask, 1 / Math.sqrt(D)); // [B, kvH, G·T, S]
  const out = matmul(probs, v); // [B, kvH, G·T, D]
  const heads = tf.transpose(tf.reshape(out, [B, H, T, D]), [0, 2, 1, 3]); // [B, T, H, D]
  return tf.reshape(heads, [B, T, H * D]);
}

/**
 * softmax(scale·s + mask) over the last axis for scores s [B, kvH, G·T, S] and an additive mask
 * [T, S] or [B, 1, T, S], shared by the G query heads of each KV head. One pass (the mask read
 * in place, never tiled) where the backend has the kernel (native); tfjs ops elsewhere.
 */
export function maskedSoftmax(s: tf.Tensor4D, mask: tf.Tensor2D | tf.Tensor4D, scale: number): tf.Tensor4D {
  if (fusable(FUSED.maskedSoftmax, s, mask)) return runFused(FUSED.maskedSoftmax, { s, mask }, { scale });
  const G = s.shape[2] / mask.shape[mask.rank - 2];
  const fullMask = G === 1 ? mask : mask.rank === 2 ? tf.tile(mask, [G, 1]) : tf.tile(mask, [1, 1, G, 1]); // [G·T, S] or [B, 1, G·T, S]
  return tf.softmax(tf.add(tf.mul(s, scale), fullMask), -1) as tf.Tensor4D;
}

/**
 * Which keys each query of a forward pass sees: row b's T queries sit at positions
 * start[b]..start[b]+T−1, its first pad[b] cache slots are padding, and with a sliding window a
 * key is visible only within `window` positions. The additive mask tensor is built only when the
 * composite attention needs it (the GPU kernel computes visibility itself). Its tensors outlive
 * the scopes of the layers that build them (a forward pass frees each layer's intermediates when
 * the layer ends): the pass that owns the mask disposes it.
 */
export class AttentionMask {
  private built: tf.Tensor2D | tf.Tensor4D | null = null;
  private rows: tf.Tensor2D | null = null;

  constructor(
    readonly T: number,
    readonly S: number,
    readonly start: readonly number[],
    readonly pad: readonly number[],
    readonly window: number | null,
    /** Rows at different positions need a mask per row ([B, 1, T, S]); else one [T, S] mask. */
    readonly perRow: boolean,
  ) {}

  /** The additive mask: [T, S], or [B, 1, T, S] per row. Built once; freed by {@link dispose}. */
  tensor(): tf.Tensor2D | tf.Tensor4D {
    if (!this.built) {
      const { T, S, start, pad, window } = this;
      this.built = tf.keep(
        this.perRow
          ? tf.tensor4d(rowAttentionMask(T, S, start, pad, window), [start.length, 1, T, S])
          : tf.tensor2d(attentionMask(T, S, start[0], window), [T, S]),
      );
    }
    return this.built;
  }

  /** int32 [B, 2]: (start, pad) per row, for the GPU kernel. Built once; freed by {@link dispose}. */
  rowsTensor(): tf.Tensor2D {
    this.rows ??= tf.keep(tf.tensor2d(this.start.flatMap((s, b) => [s, this.pad[b]]), [this.start.length, 2], 'int32'));
    return this.rows;
  }

  /** Frees the tensors built so far (a later call builds them again). */
  dispose(): void {
    this.built?.dispose();
    this.rows?.dispose();
    this.built = null;
    this.rows = null;
  }
}

/** Head sizes the GPU attention kernel takes (its tiles live in workgroup memory). */
const FUSED_MAX_HEAD_DIM = 128;

/**
 * Causal grouped-query attention over a KV cache. The native backend's tiled kernel (forward and
 * backward, never the [T, S] score matrix) where it pays ({@link tiledAttentionPays}); one
 * flash-style GPU kernel when inferring on the GPU backend; {@link groupedAttention} otherwise
 * (and while training on the GPU, whose gradient tfjs takes). Shapes as groupedAttention's;
 * returns [B, T, heads·D].
 */
export function attention(q: tf.Tensor4D, kT: tf.Tensor4D, v: tf.Tensor4D, mask: AttentionMask, training: boolean): tf.Tensor3D {
  const D = q.shape[3];
  if (tiledAttentionPays(q.shape[2], kT.shape[3]) && fusable(FUSED.flashAttention, q, kT, v)) return tiledAttention(q, kT, v, mask);
  if (!training && D <= FUSED_MAX_HEAD_DIM && fusable(FUSED.attention, q, kT, v)) {
    return runFused(FUSED.attention, { q, kT, v, rows: mask.rowsTensor() }, kernelAttrs(mask, D));
  }
  return groupedAttention(q, kT, v, mask.tensor());
}

/** The attributes both attention kernels take: the window (0: none) and the scale 1/√D. */
const kernelAttrs = (mask: AttentionMask, D: number) => ({ window: mask.window ?? 0, scale: 1 / Math.sqrt(D) });

/**
 * The native backend's tiled attention (native/src/flashAttention.h), with its backward kernel:
 * shapes as {@link groupedAttention}'s, the same result without the [T, S] score matrix. Only
 * where the backend has the kernel (fusable(FUSED.flashAttention)).
 */
export function tiledAttention(q: tf.Tensor4D, kT: tf.Tensor4D, v: tf.Tensor4D, mask: AttentionMask): tf.Tensor3D {
  const inputs = { q, kT, v, rows: mask.rowsTensor() };
  return runFused<tf.Tensor[]>(FUSED.flashAttention, inputs, kernelAttrs(mask, q.shape[3]))[0] as tf.Tensor3D;
}

/**
 * Whether the tiled attention runs for T queries over S slots: from one full block of query rows
 * (32) on. With fewer (a decoding step, a short continuation) a tile is mostly padding, and the
 * composite's two small BLAS products over a [T, S] matrix that is small anyway were faster
 * (npm run bench:attention, docs/agent-model.md: 0.38 against 0.81 CPU ms for one query over
 * 5,000 slots). CLAWLOOP_TILED_ATTENTION=0 never runs it, =1 runs it for every call (to compare the two
 * ways, and to test the kernel on every path).
 */
export function tiledAttentionPays(T: number, S: number): boolean {
  tiledMode ??= readTiledMode();
  if (tiledMode !== 'auto') return tiledMode === 'always';
  return T >= TILED_MIN_QUERIES && S >= T;
}

/** The query rows of one tile of the native kernel (native/src/flashAttention.h kAttnRows). */
const TILED_MIN_QUERIES = 32;

/** CLAWLOOP_TILED_ATTENTION, read once (it is consulted on every attention call). */
let tiledMode: 'auto' | 'never' | 'always' | null = null;

function readTiledMode(): 'auto' | 'never' | 'always' {
  const v = process.env.CLAWLOOP_TILED_ATTENTION;
  if (v === undefined || v === '') return 'auto';
  if (v === '0' || v === '1') return v === '1' ? 'always' : 'never';
  throw new Error(`CLAWLOOP_TILED_ATTENTION is '${v}'; use 0 (never), 1 (every call) or leave it unset (from 32 queries on)`);
}
