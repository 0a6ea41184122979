import * as tf from '@tensorflow/tfjs-core';

/** Swaps the last two axes: [..., M, N] -> [..., N, M]. */
export function transposeLast2(x: tf.Tensor): tf.Tensor {
  const r = x.rank;
  const perm = [...Array(r).keys()];
  [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
  return tf.transpose(x, perm);
}

/**
 * a @ b for a [..., M, K] and b [..., K, N] with equal batch axes (or b rank 2 when a is rank 2).
 * Its gradient (training/gradients.ts) computes only the inputs that need one (a frozen weight
 * gets none), with transpose flags where the backend multiplies transposes fast and explicit
 * transposes where it does not (pure tfjs-wasm runs transposed products 10–40× slower).
 */
export function matmul(a: tf.Tensor, b: tf.Tensor): tf.Tensor {
  return tf.matMul(a, b);
}
