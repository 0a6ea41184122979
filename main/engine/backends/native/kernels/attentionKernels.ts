import type * as tf from '@tensorflow/tfjs-core';
import { FUSED } from '../../../ops/fusedKernels.js';
import type { NativeBackend } from '../nativeBackend.js';
import type { Buf } from '../ndAddon.js';
import { nativeKernel, words } from './kernelUtil.js';

/**
 * The native backend's tiled causal attention (native/src/flashAttention*.cc): the forward pass
 * keeps one [rows, keys] tile per thread and saves each row's log-sum-exp; the backward pass
 * recomputes the probabilities tile by tile from it. Neither holds the [T, S] score matrix.
 */

type Attrs = { window: number; scale: number };

/** The dimensions every call takes after its buffers: B, H, KVH, T, S, D, window, scale. */
function dims(
  q: tf.TensorInfo,
  kT: tf.TensorInfo,
  attrs: Record<string, unknown>,
): [number, number, number, number, number, number, number, number] {
  const [B, H, T, D] = q.shape; // q [B, H, T, D]
  const [, KVH, , S] = kT.shape; // kT [B, KVH, D, S]
  const { window, scale } = attrs as Attrs;
  return [B, H, KVH, T, S, D, window, scale];
}

const out = (backend: NativeBackend, buf: Buf, shape: number[]) => backend.makeOutput(buf, shape, 'float32');

export const ATTENTION_KERNELS: tf.KernelConfig[] = [
  nativeKernel(FUSED.flashAttention, (backend, { q, kT, v, rows }, attrs) => {
    const d = dims(q, kT, attrs);
    const [B, H, , T, , D] = d;
    const [o, lse] = backend.nd.flashAttention(words(backend, q), words(backend, kT), words(backend, v), words(backend, rows), ...d);
    return [out(backend, o, [B, T, H * D]), out(backend, lse, [B, H, T])];
  }),
  nativeKernel(FUSED.flashAttentionGrad, (backend, { q, kT, v, rows, out: o, lse, dy }, attrs) => {
    const w = (t: tf.TensorInfo) => words(backend, t);
    const grads = backend.nd.flashAttentionGrad(w(q), w(kT), w(v), w(o), w(lse), w(dy), w(rows), ...dims(q, kT, attrs));
    return [out(backend, grads[0], [...q.shape]), out(backend, grads[1], [...kT.shape]), out(backend, grads[2], [...v.shape])];
  }),
];
