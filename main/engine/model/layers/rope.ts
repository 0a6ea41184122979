import * as tf from '@tensorflow/tfjs-core';
import type { ModelConfig } from '../config.js';
import { FUSED, fusable, runFused } from '../../ops/fusedKernels.js';

/**
 * RoPE inverse frequencies (length headDim/2), with the config's scaling applied:
 * `linear` divides every frequency by the factor; `llama3` divides the low frequencies, keeps the
 * high ones and interpolates in between (Llama 3.1).
 */
export function ropeInvFreq(c: ModelConfig): Float64Array {
  const half = c.headDim / 2;
  const inv = new Float64Array(half);
  for (let i = 0; i < half; i++) inv[i] = Math.fround(1 / c.ropeTheta ** ((2 * i) / c.headDim));
  const s = c.ropeScaling;
  if (s.type === 'linear') {
    for (let i = 0; i < half; i++) inv[i] /= s.factor;
  } else if (s.type === 'llama3') {
    const lowWavelen = s.originalMaxPositions / s.lowFreqFactor;
    const highWavelen = s.originalMaxPositions / s.highFreqFactor;
    for (let i = 0; i < half; i++) {
      const wavelen = (2 * Math.PI) / inv[i];
      if (wavelen > lowWavelen) {
        inv[i] /= s.factor;
      } else if (wavelen >= highWavelen) {
        const smooth = (s.originalMaxPositions / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
        inv[i] = (1 - smooth) * (inv[i] / s.factor) + smooth * inv[i];
      }
    }
  }
  return inv;
}

/** cos and sin tables for positions [offset, offset + T): each [T, headDim/2]. */
export function ropeTables(invFreq: Float64Array, offset: number, T: number): { cos: tf.Tensor2D; sin: tf.Tensor2D } {
  const half = invFreq.length;
  const cos = new Float32Array(T * half);
  const sin = new Float32Array(T * half);
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < half; i++) {
      // float32 angle, as PyTorch computes positions * inv_freq in float32
      const a = Math.fround((offset + t) * Math.fround(invFreq[i]));
      cos[t * half + i] = Math.cos(a);
      sin[t * half + i] = Math.sin(a);
    }
  }
  return { cos: tf.tensor2d(cos, [T, half]), sin: tf.tensor2d(sin, [T, half]) };
}

/** cos and sin tables per row: row b at positions [start[b], start[b] + T); each [B, 1, T, headDim/2]. */
export function ropeTablesRows(invFreq: Float64Array, start: readonly number[], T: number): { cos: tf.Tensor4D; sin: tf.Tensor4D } {
  const half = invFreq.length;
  const B = start.length;
  const cos = new Float32Array(B * T * half);
  const sin = new Float32Array(B * T * half);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      for (let i = 0; i < half; i++) {
        const a = Math.fround((start[b] + t) * Math.fround(invFreq[i]));
        cos[(b * T + t) * half + i] = Math.cos(a);
        sin[(b * T + t) * half + i] = Math.sin(a);
      }
    }
  }
  return { cos: tf.tensor4d(cos, [B, 1, T, half]), sin: tf.tensor4d(sin, [B, 1, T, half]) };
}

/**
 * Rotates the two halves of each head ("rotate_half" RoPE, as in Hugging Face Llama):
 * [x1, x2] -> [x1·cos − x2·sin, x2·cos + x1·sin]. x: [B, heads, T, D]; cos/sin: [T, D/2] (or [B, 1, T, D/2] per row).
 */
export function applyRope(x: tf.Tensor4D, cos: tf.Tensor, sin: tf.Tensor): tf.Tensor4D {
  const [x1, x2] = tf.split(x, 2, -1);
  return tf.concat([tf.sub(tf.mul(x1, cos), tf.mul(x2, sin)), tf.add(tf.mul(x2, cos), tf.mul(x1, sin))], -1) as tf.Tensor4D;
}

/**
 * RoPE on one projection's heads, with the transpose attention needs: x [B, T, heads, D] →
 * [B, heads, T, D] (queries, values' layout), or [B, heads, D, T] with `keysT` (keys, which
 * attention reads transposed so its scores are a plain matmul). cos/sin as {@link applyRope} takes
 * them. One kernel where the backend has one (GPU, native); transposes around {@link applyRope} elsewhere.
 */
export function ropeHeads(x: tf.Tensor4D, cos: tf.Tensor, sin: tf.Tensor, keysT: boolean): tf.Tensor4D {
  if (fusable(FUSED.rope, x, cos, sin)) return runFused(FUSED.rope, { x, cos, sin }, { keysT });
  const r = applyRope(tf.transpose(x, [0, 2, 1, 3]) as tf.Tensor4D, cos, sin);
  return keysT ? (tf.transpose(r, [0, 1, 3, 2]) as tf.Tensor4D) : r;
}
