import * as tf from '@tensorflow/tfjs-core';
import { fastTransposedMatmul } from '../../backends/capabilities.js';
import { matmul } from './matmul.js';

/**
 * How a projection weight is held:
 * - `outIn`: Hugging Face's [out, in], multiplied as x·Wᵀ with a transpose flag. A weight file's
 *   tensor is used as it is on disk (a memory-mapped BF16 weight is never copied or widened).
 *   Where transposed products are as fast as plain ones (the native backend, BLAS kernels).
 * - `inOut`: transposed once at load to [in, out], so the product is a plain x·W. Pure tfjs-wasm
 *   runs transposed products 10–40× slower.
 */
export type WeightLayout = 'outIn' | 'inOut';

/** The layout the active backend multiplies fastest. */
export function preferredLayout(): WeightLayout {
  return fastTransposedMatmul() ? 'outIn' : 'inOut';
}

/** x [..., in] times a projection weight held in `layout`: [..., out]. */
export function project(x: tf.Tensor, w: tf.Tensor, layout: WeightLayout): tf.Tensor {
  return layout === 'outIn' ? tf.matMul(x, w, false, true) : matmul(x, w);
}
