import type * as tf from '@tensorflow/tfjs-core';

/*
 * Reading tensors back to the host. Every read in the engine is asynchronous: a GPU backend has no
 * synchronous read (tfjs-webgpu's `dataSync` needs a browser's OffscreenCanvas), and on the CPU
 * backends `data()` resolves at once, so awaiting costs one microtask.
 */

/** The values of a float32 tensor, which is then disposed. */
export async function readFloats(t: tf.Tensor): Promise<Float32Array> {
  try {
    return (await t.data()) as Float32Array;
  } finally {
    t.dispose();
  }
}

/** The values of several tensors (read together, so a GPU waits once), which are then disposed. */
export async function readAll(ts: readonly tf.Tensor[]): Promise<Array<Float32Array | Int32Array | Uint8Array>> {
  try {
    return (await Promise.all(ts.map((t) => t.data()))) as Array<Float32Array | Int32Array | Uint8Array>;
  } finally {
    for (const t of ts) t.dispose();
  }
}

/** The one value of a scalar tensor, which is then disposed. */
export async function readScalar(t: tf.Tensor): Promise<number> {
  return (await readFloats(t))[0];
}
