import * as tf from '@tensorflow/tfjs-core';
import { VOCAB_STATS, VOCAB_STATS_GRAD } from './kernels/fusedKernels.js';

/**
 * [N, 2] log-sum-exp and entropy of softmax(h·Wᵀ) for h [N, H] and a head W [V, H] (16-bit or
 * float32) in one native pass over the vocabulary per direction (native/src/vocabStats.cc): the
 * head is widened one cache-sized panel at a time and no [N, V] tensor is made. Differentiable in
 * h, and in W when `weightGrad`. Only on the native backend.
 */
export function nativeVocabStats(h: tf.Tensor2D, w: tf.Tensor, weightGrad: boolean): tf.Tensor2D {
  const engine = tf.engine();
  const grad = (x: tf.Tensor, stats: tf.Tensor, dy: tf.Tensor) =>
    engine.runKernel(VOCAB_STATS_GRAD, { h: x, w, stats, dy }, { weightGrad } as unknown as tf.NamedAttrMap) as tf.Tensor[];
  if (weightGrad) {
    const op = tf.customGrad(((x: tf.Tensor, wv: tf.Tensor, save: tf.GradSaveFunc) => {
      const out = engine.runKernel(VOCAB_STATS, { h: x, w: wv }) as tf.Tensor;
      save([x, out]);
      return { value: out, gradFunc: (dy: tf.Tensor, [sx, so]: tf.Tensor[]) => grad(sx, so, dy) };
    }) as unknown as Parameters<typeof tf.customGrad>[0]);
    return op(h, w) as tf.Tensor2D;
  }
  const op = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const out = engine.runKernel(VOCAB_STATS, { h: x, w }) as tf.Tensor;
    save([x, out]);
    return { value: out, gradFunc: (dy: tf.Tensor, [sx, so]: tf.Tensor[]) => [grad(sx, so, dy)[0]] };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return op(h) as tf.Tensor2D;
}
