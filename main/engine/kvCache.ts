import * as tf from '@tensorflow/tfjs-core';

/**
 * Keys and values of the positions seen so far, per layer. Keys are kept transposed
 * ([B, kvHeads, headDim, S]) so attention scores are a plain matmul.
 */
export class KVCache {
  private readonly keysT: Array<tf.Tensor4D | null>;
  private readonly values: Array<tf.Tensor4D | null>;
  private len = 0;

  constructor(readonly numLayers: number) {
    this.keysT = new Array(numLayers).fill(null);
    this.values = new Array(numLayers).fill(null);
  }

  /** Number of cached positions. */
  get length(): number {
    return this.len;
  }

  /**
   * Appends one layer's new keys ([B, kv, D, T]) and values ([B, kv, T, D]) and returns the full
   * tensors. The cache owns what it returns (it survives the caller's tf.tidy).
   */
  append(layer: number, kT: tf.Tensor4D, v: tf.Tensor4D): { kT: tf.Tensor4D; v: tf.Tensor4D } {
    const oldK = this.keysT[layer];
    const oldV = this.values[layer];
    const newK = oldK ? (tf.concat([oldK, kT], 3) as tf.Tensor4D) : kT;
    const newV = oldV ? (tf.concat([oldV, v], 2) as tf.Tensor4D) : v;
    this.keysT[layer] = tf.keep(newK);
    this.values[layer] = tf.keep(newV);
    if (oldK) oldK.dispose();
    if (oldV) oldV.dispose();
    if (layer === this.numLayers - 1) this.len = newV.shape[2];
    return { kT: newK, v: newV };
  }

  dispose(): void {
    for (let l = 0; l < this.numLayers; l++) {
      this.keysT[l]?.dispose();
      this.values[l]?.dispose();
      this.keysT[l] = this.values[l] = null;
    }
    this.len = 0;
  }
}
