import type * as tf from '@tensorflow/tfjs-core';
import { nativeKernel, stored, words } from './kernelUtil.js';

/**
 * Kernels for fused operations the engine calls by name on the native backend (fusedOps.ts): no
 * tfjs op has them, so they have no tfjs gradient; fusedOps.ts wraps them in custom gradients.
 */
export const VOCAB_STATS = 'ClawLoopVocabStats';
export const VOCAB_STATS_GRAD = 'ClawLoopVocabStatsGrad';

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
];
