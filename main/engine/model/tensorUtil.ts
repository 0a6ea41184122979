import * as tf from '@tensorflow/tfjs-core';

/** Transposes a row-major [rows, cols] matrix into a new [cols, rows] one. */
export function transpose2d(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  // Blocked so both reads and writes stay in cache for large matrices.
  const B = 64;
  for (let r0 = 0; r0 < rows; r0 += B) {
    const r1 = Math.min(rows, r0 + B);
    for (let c0 = 0; c0 < cols; c0 += B) {
      const c1 = Math.min(cols, c0 + B);
      for (let r = r0; r < r1; r++) {
        const rowBase = r * cols;
        for (let c = c0; c < c1; c++) out[c * rows + r] = data[rowBase + c];
      }
    }
  }
  return out;
}

/** A tfjs Variable holding a copy of `data` (the temporary tensor is released at once). */
export function variableFrom(data: Float32Array, shape: number[], trainable: boolean): tf.Variable {
  const t = tf.tensor(data, shape, 'float32');
  const v = tf.variable(t, trainable);
  t.dispose();
  return v;
}

/** A frozen tfjs Variable that takes over `t`'s data (no copy); `t` itself is released. */
export function variableOf(t: tf.Tensor): tf.Variable {
  const v = tf.variable(t, false);
  t.dispose();
  return v;
}

/** The entries log p[n, targets[n]] of a [N, V] matrix: [N]. */
export function pickTargets(logp: tf.Tensor2D, targets: readonly number[]): tf.Tensor1D {
  const V = logp.shape[1];
  const flat = tf.tensor1d(
    targets.map((t, n) => n * V + t),
    'int32',
  );
  return tf.gather(tf.reshape(logp, [-1]), flat) as tf.Tensor1D;
}
