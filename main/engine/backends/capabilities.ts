import * as tf from '@tensorflow/tfjs-core';
import { nativeWasmKernelsActive } from './wasmKernels.js';

/**
 * True when transposed matrix products cost no more than plain ones: the native backend, or
 * tfjs-wasm with the addon's BLAS kernels. Gradients then pass transpose flags instead of
 * materialising transposes, and weights stay in Hugging Face's [out, in] layout.
 */
export function fastTransposedMatmul(): boolean {
  const backend = tf.getBackend();
  return backend === 'native' || (backend === 'wasm' && nativeWasmKernelsActive());
}
