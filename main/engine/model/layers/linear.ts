import * as tf from '@tensorflow/tfjs-core';
import { fastTransposedMatmul } from '../../backends/capabilities.js';
import { PackedWeight } from '../packedWeight.js';
import { matmul } from './matmul.js';

/**
 * How a projection weight is held:
 * - `outIn`: Hugging Face's [out, in], multiplied as x·Wᵀ with a transpose flag. A weight file's
 *   tensor is used as it is on disk (a memory-mapped BF16 weight is never copied or widened).
 *   Where transposed products are as fast as plain ones (the native backend, BLAS kernels).
 * - `inOut`: transposed once at load to [in, out], so the product is a plain x·W. Pure tfjs-wasm
 *   runs transposed products 10–40× slower. Also the GPU's layout (a 16-bit PackedWeight is
 *   packed [in, out]).
 */
export type WeightLayout = 'outIn' | 'inOut';

/** The layout the active backend multiplies fastest. */
export function preferredLayout(): WeightLayout {
  return fastTransposedMatmul() ? 'outIn' : 'inOut';
}

/** A projection weight as a model holds it: float32 (or memory-mapped 16-bit) tensor, or 16 bits packed for the GPU. */
export type ProjectionWeight = tf.Tensor | PackedWeight;

/** x [..., in] times a projection weight held in `layout`: [..., out]. */
export function project(x: tf.Tensor, w: ProjectionWeight, layout: WeightLayout): tf.Tensor {
  if (w instanceof PackedWeight) return w.matmul(x, layout === 'outIn');
  return layout === 'outIn' ? tf.matMul(x, w, false, true) : matmul(x, w);
}

/** dy [..., out] back through a projection held in `layout`: dy·W as Hugging Face holds W, [..., in]. */
export function projectBack(dy: tf.Tensor, w: ProjectionWeight, layout: WeightLayout, mm: (a: tf.Tensor, b: tf.Tensor, ta: boolean, tb: boolean) => tf.Tensor): tf.Tensor {
  if (w instanceof PackedWeight) return w.matmul(dy, layout !== 'outIn');
  return layout === 'outIn' ? tf.matMul(dy, w) : mm(dy, w, false, true);
}
