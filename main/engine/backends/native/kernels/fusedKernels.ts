import type * as tf from '@tensorflow/tfjs-core';
import { nativeKernel, size, stored, words } from './kernelUtil.js';

/**
 * Kernels for fused operations the engine calls by name on the native backend (fusedOps.ts): no
 * tfjs op has them, so they have no tfjs gradient; fusedOps.ts wraps them in custom gradients.
 */
export const VOCAB_STATS = 'ClawLoopVocabStats';
export const VOCAB_STATS_GRAD = 'ClawLoopVocabStatsGrad';
export const RMS_NORM = 'ClawLoopRmsNorm';
export const RMS_NORM_GRAD = 'ClawLoopRmsNormGrad';
export const SWIGLU = 'ClawLoopSwiglu';
export const SWIGLU_GRAD = 'ClawLoopSwigluGrad';
export const ROPE = 'ClawLoopRope';
export const MASKED_SOFTMAX = 'ClawLoopMaskedSoftmax';
export const MASKED_SOFTMAX_GRAD = 'ClawLoopMaskedSoftmaxGrad';

const lastDim = (t: tf.TensorInfo) => t.shape[t.shape.length - 1];

export const FUSED_KERNELS: tf.KernelConfig[] = [
  nativeKernel(VOCAB_STATS, (backend, { h, w }) => {
    const [N, H] = h.shape;
    const buf = backend.nd.vocabStats(words(backend, h), stored(backend, w), N, w.shape[0], H);
    return backend.makeOutput(buf, [N, 2], 'float32');
  }),
  nativeKernel(VOCAB_STATS_GRAD, (backend, { h, w, stats, dy }, attrs) => {
    const [N, H] = h.shape;
    const V = w.shape[0];
    const bufs = backend.nd.vocabStatsGrad(words(backend, h), stored(backend, w), words(backend, stats), words(backend, dy), N, V, H, attrs.weightGrad === true);
    return bufs.map((b, i) => backend.makeOutput(b, i === 0 ? [N, H] : [V, H], 'float32'));
  }),
  nativeKernel(RMS_NORM, (backend, { x, w }, attrs) => {
    const D = lastDim(x);
    const R = size(x.shape) / D;
    const [y, r] = backend.nd.rmsNorm(words(backend, x), words(backend, w), R, D, attrs.eps as number);
    return [backend.makeOutput(y, [...x.shape], 'float32'), backend.makeOutput(r, [R], 'float32')];
  }),
  nativeKernel(RMS_NORM_GRAD, (backend, { x, w, r, dy }) => {
    const D = lastDim(x);
    const [dx, dw] = backend.nd.rmsNormGrad(words(backend, x), words(backend, w), words(backend, r), words(backend, dy), size(x.shape) / D, D);
    return [backend.makeOutput(dx, [...x.shape], 'float32'), backend.makeOutput(dw, [D], 'float32')];
  }),
  nativeKernel(SWIGLU, (backend, { g, u }) => backend.makeOutput(backend.nd.swiglu(words(backend, g), words(backend, u)), [...g.shape], 'float32')),
  nativeKernel(SWIGLU_GRAD, (backend, { g, u, dy }) =>
    backend.nd.swigluGrad(words(backend, g), words(backend, u), words(backend, dy)).map((b) => backend.makeOutput(b, [...g.shape], 'float32')),
  ),
  nativeKernel(ROPE, (backend, { x, cos, sin }, attrs) => {
    // Forward from [B, T, H, D] to [B, H, T, D]; the inverse (backward) the other way.
    const inverse = attrs.inverse === true;
    const [B, d1, d2, D] = x.shape;
    const [H, T] = inverse ? [d1, d2] : [d2, d1];
    const buf = backend.nd.rope(words(backend, x), words(backend, cos), words(backend, sin), B, H, T, D, cos.shape.length === 4, true, inverse);
    return backend.makeOutput(buf, inverse ? [B, T, H, D] : [B, H, T, D], 'float32');
  }),
  nativeKernel(MASKED_SOFTMAX, (backend, { s, mask }, attrs) => {
    const [B, K, GT, S] = s.shape;
    const T = mask.shape[mask.shape.length - 2];
    const buf = backend.nd.maskedSoftmax(words(backend, s), words(backend, mask), B, K, GT, T, S, mask.shape.length === 4, attrs.scale as number);
    return backend.makeOutput(buf, [...s.shape], 'float32');
  }),
  nativeKernel(MASKED_SOFTMAX_GRAD, (backend, { p, dp }, attrs) => {
    const S = lastDim(p);
    const buf = backend.nd.maskedSoftmaxGrad(words(backend, p), words(backend, dp), size(p.shape) / S, S, attrs.scale as number);
    return backend.makeOutput(buf, [...p.shape], 'float32');
  }),
];
