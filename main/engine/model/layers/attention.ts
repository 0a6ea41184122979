import * as tf from '@tensorflow/tfjs-core';
import { FUSED, fusedMaskedSoftmax, hasKernel } from './fused.js';
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
  const probs = hasKernel(FUSED.MASKED_SOFTMAX)
    ? fusedMaskedSoftmax(matmul(qg, kT) as tf.Tensor4D, mask, 1 / Math.sqrt(D))
    : unfusedProbs(matmul(qg, kT), mask, G, D);
  const out = matmul(probs, v); // [B, kvH, G·T, D]
  const heads = tf.transpose(tf.reshape(out, [B, H, T, D]), [0, 2, 1, 3]); // [B, T, H, D]
  return tf.reshape(heads, [B, T, H * D]);
}

/** softmax(scores/√D + mask) with tfjs ops: the mask tiled for the G query heads of each KV head. */
function unfusedProbs(raw: tf.Tensor, mask: tf.Tensor2D | tf.Tensor4D, G: number, D: number): tf.Tensor {
  const fullMask = G === 1 ? mask : mask.rank === 2 ? tf.tile(mask, [G, 1]) : tf.tile(mask, [1, 1, G, 1]); // [G·T, S] or [B, 1, G·T, S]
  return tf.softmax(tf.add(tf.mul(raw, 1 / Math.sqrt(D)), fullMask), -1); // [B, kvH, G·T, S]
}
