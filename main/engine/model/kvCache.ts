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

  /** Number of sequences (rows); 0 while empty. */
  get batch(): number {
    return this.values[0]?.shape[0] ?? 0;
  }

  /**
   * Inserts `n` empty (zero) positions before every row's cached ones, so rows of different
   * lengths can share one cache: the caller masks them out (see CausalLM's `rows` option).
   */
  padLeft(n: number): void {
    if (n <= 0 || this.len === 0) return;
    for (let l = 0; l < this.numLayers; l++) {
      const k = this.keysT[l]!;
      const v = this.values[l]!;
      this.keysT[l] = tf.keep(tf.tidy(() => padSlots(k, 3, n)));
      this.values[l] = tf.keep(tf.tidy(() => padSlots(v, 2, n)));
      k.dispose();
      v.dispose();
    }
    this.len += n;
  }

  /** Appends the rows of `other` (same length) after this cache's rows; `other` is left untouched. */
  concatRows(other: KVCache): void {
    if (other.length !== this.len && this.len !== 0) throw new RangeError(`concatRows: lengths differ (${this.len} vs ${other.length})`);
    for (let l = 0; l < this.numLayers; l++) {
      const k = this.keysT[l];
      const v = this.values[l];
      this.keysT[l] = tf.keep(k ? (tf.concat([k, other.keysT[l]!], 0) as tf.Tensor4D) : tf.clone(other.keysT[l]!));
      this.values[l] = tf.keep(v ? (tf.concat([v, other.values[l]!], 0) as tf.Tensor4D) : tf.clone(other.values[l]!));
      k?.dispose();
      v?.dispose();
    }
    this.len = other.length;
  }

  /** Keeps only the given rows, in the given order (an empty list empties the cache). */
  selectRows(rows: readonly number[]): void {
    if (rows.length === 0) {
      this.dispose();
      return;
    }
    const idx = tf.tensor1d(rows as number[], 'int32');
    for (let l = 0; l < this.numLayers; l++) {
      const k = this.keysT[l]!;
      const v = this.values[l]!;
      this.keysT[l] = tf.keep(tf.gather(k, idx, 0) as tf.Tensor4D);
      this.values[l] = tf.keep(tf.gather(v, idx, 0) as tf.Tensor4D);
      k.dispose();
      v.dispose();
    }
    idx.dispose();
  }

  /** Drops the first `n` positions of every row (left padding no row needs any more). */
  trimLeft(n: number): void {
    if (n <= 0) return;
    if (n > this.len) throw new RangeError(`trimLeft: ${n} > length ${this.len}`);
    for (let l = 0; l < this.numLayers; l++) {
      const k = this.keysT[l]!;
      const v = this.values[l]!;
      const [B, kv, D, S] = k.shape;
      this.keysT[l] = tf.keep(tf.slice(k, [0, 0, 0, n], [B, kv, D, S - n]) as tf.Tensor4D);
      this.values[l] = tf.keep(tf.slice(v, [0, 0, n, 0], [B, kv, S - n, D]) as tf.Tensor4D);
      k.dispose();
      v.dispose();
    }
    this.len -= n;
  }

  /** A new cache holding row `row`'s first `length` positions (a copy; this cache is left untouched). */
  rowPrefix(row: number, length: number): KVCache {
    return this.rowSlice(row, 0, length);
  }

  /**
   * A new one-row cache holding row `row`'s positions `from`..`from + length − 1` (a copy; this
   * cache is left untouched): e.g. a left-padded row without its padding.
   */
  rowSlice(row: number, from: number, length: number): KVCache {
    if (!(row >= 0 && row < this.batch)) throw new RangeError(`rowSlice: row ${row} of ${this.batch}`);
    if (!(length > 0 && from >= 0 && from + length <= this.len))
      throw new RangeError(`rowSlice: ${length} positions of ${this.len}, starting at ${from}`);
    const out = new KVCache(this.numLayers);
    try {
      for (let l = 0; l < this.numLayers; l++) {
        const [, kv, D] = this.keysT[l]!.shape;
        out.keysT[l] = tf.keep(tf.slice(this.keysT[l]!, [row, 0, 0, from], [1, kv, D, length]) as tf.Tensor4D);
        out.values[l] = tf.keep(tf.slice(this.values[l]!, [row, 0, from, 0], [1, kv, length, D]) as tf.Tensor4D);
      }
    } catch (err) {
      out.dispose();
      throw err;
    }
    out.len = length;
    return out;
  }

  /**
   * A new cache with the same rows' first `length` positions (default: all). All of them costs no
   * copy: the new cache's tensors share this one's memory (tfjs counts references), and appending
   * to either never changes the other, since appending makes new tensors.
   */
  share(length = this.len): KVCache {
    if (this.len === 0) throw new RangeError('share: the cache is empty');
    if (length < this.len) {
      if (this.batch !== 1) throw new RangeError(`share: a prefix of ${this.batch} rows; expected 1`);
      return this.rowSlice(0, 0, length);
    }
    if (length !== this.len) throw new RangeError(`share: ${length} positions of ${this.len}`);
    const out = new KVCache(this.numLayers);
    for (let l = 0; l < this.numLayers; l++) {
      out.keysT[l] = tf.keep(tf.clone(this.keysT[l]!));
      out.values[l] = tf.keep(tf.clone(this.values[l]!));
    }
    out.len = this.len;
    return out;
  }

  /** Memory the keys and values take, in bytes (float32). */
  get bytes(): number {
    let n = 0;
    for (let l = 0; l < this.numLayers; l++) n += (this.keysT[l]?.size ?? 0) + (this.values[l]?.size ?? 0);
    return n * 4;
  }

  /**
   * The rows of several caches of any lengths in one, in order, each left-padded to the longest
   * (with {@link padLeft}'s zeros): one copy per layer, however many parts. The parts are left
   * untouched. Returns each row's padding, for CausalLM's `rows` option.
   */
  static stack(parts: readonly KVCache[]): { cache: KVCache; pad: number[] } {
    if (parts.length === 0 || parts.some((p) => p.len === 0)) throw new RangeError('stack: needs caches with at least one position');
    const numLayers = parts[0].numLayers;
    if (parts.some((p) => p.numLayers !== numLayers)) throw new RangeError('stack: the caches have different numbers of layers');
    const L = Math.max(...parts.map((p) => p.len));
    const out = new KVCache(numLayers);
    try {
      for (let l = 0; l < numLayers; l++) {
        out.keysT[l] = tf.keep(
          tf.tidy(
            () =>
              tf.concat(
                parts.map((p) => padSlots(p.keysT[l]!, 3, L - p.len)),
                0,
              ) as tf.Tensor4D,
          ),
        );
        out.values[l] = tf.keep(
          tf.tidy(
            () =>
              tf.concat(
                parts.map((p) => padSlots(p.values[l]!, 2, L - p.len)),
                0,
              ) as tf.Tensor4D,
          ),
        );
      }
    } catch (err) {
      out.dispose();
      throw err;
    }
    out.len = L;
    return { cache: out, pad: parts.flatMap((p) => new Array<number>(p.batch).fill(L - p.len)) };
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

/** `n` zero slots before a cache tensor's positions (on `axis`: 3 for transposed keys, 2 for values). */
function padSlots(x: tf.Tensor4D, axis: 2 | 3, n: number): tf.Tensor4D {
  if (n === 0) return x;
  const shape = [...x.shape] as [number, number, number, number];
  shape[axis] = n;
  return tf.concat([tf.zeros(shape), x], axis) as tf.Tensor4D;
}
