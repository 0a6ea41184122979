import * as tf from '@tensorflow/tfjs-core';
import { gpuContext } from './webgpu/gpuContext.js';

/**
 * True when transposed matrix products cost no more than plain ones: the native backend (BLAS).
 * Gradients then pass transpose flags instead of materialising transposes, and weights stay in
 * Hugging Face's [out, in] layout.
 */
export function fastTransposedMatmul(): boolean {
  return tf.getBackend() === 'native';
}

/**
 * True when gradients may pass transpose flags instead of materialising transposes: where
 * {@link fastTransposedMatmul} holds, and on the GPU, whose kernels read either layout coalesced
 * (its weights still stay [in, out]: a 16-bit packed weight is packed in that layout).
 */
export function transposesAreFree(): boolean {
  return fastTransposedMatmul() || gpuContext() !== null;
}
