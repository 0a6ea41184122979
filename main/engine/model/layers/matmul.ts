import * as tf from '@tensorflow/tfjs-core';
import { fastTransposedMatmul } from '../../backends/wasmKernels.js';
import { gpuContext } from '../../backends/webgpu/gpuContext.js';

/** Swaps the last two axes: [..., M, N] -> [..., N, M]. */
export function transposeLast2(x: tf.Tensor): tf.Tensor {
  const r = x.rank;
  const perm = [...Array(r).keys()];
  [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
  return tf.transpose(x, perm);
}

/**
 * Whether the active backend multiplies by a transposed operand as fast as by a plain one: native
 * BLAS under wasm, and the GPU's kernels (which read either layout coalesced).
 */
export function transposesAreFree(): boolean {
  return fastTransposedMatmul() || gpuContext() !== null;
}

/**
 * a @ b for a [..., M, K] and b [..., K, N] with equal batch axes (or b rank 2 when a is rank 2).
 *
 * Without native kernels the gradient materialises the transposes and runs plain matmuls: pure
 * tfjs-wasm runs transposed matmuls 10–40× slower than plain ones. With native BLAS or on the GPU
 * the transposes are free, so they are passed as flags.
 */
export const matmul: (a: tf.Tensor, b: tf.Tensor) => tf.Tensor = tf.customGrad(
  // tfjs types customGrad's inputs loosely; the function is only ever called with two tensors.
  ((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
    save([a, b]);
    return {
      value: tf.matMul(a, b),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sa, sb] = saved;
        if (transposesAreFree()) return [tf.matMul(dy, sb, false, true), tf.matMul(sa, dy, true, false)];
        return [tf.matMul(dy, transposeLast2(sb)), tf.matMul(transposeLast2(sa), dy)];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0],
) as (a: tf.Tensor, b: tf.Tensor) => tf.Tensor;
