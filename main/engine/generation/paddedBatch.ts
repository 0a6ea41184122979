import type * as tf from '@tensorflow/tfjs-core';
import type { CausalLM } from '../model/causalLM.js';
import { KVCache } from '../model/kvCache.js';
import type { LoraAdapter } from '../model/lora.js';
import { lastLogits } from './decodeStep.js';

/** A sequence in a {@link PaddedBatch}. */
export interface PaddedRow {
  /** Position of its next input token (its true length so far). */
  start: number;
  /** Cache slots before its first real one. */
  pad: number;
  /** Finished: it stays in the cache until {@link PaddedBatch.compact} drops it, fed placeholders, not advanced. */
  done: boolean;
}

/**
 * Sequences of different lengths decoding together in one left-padded KV cache: each step feeds
 * one token per row through the model in a single forward pass (the masks keep each row to its
 * own positions). Rows join with their keys and values (whichever side is shorter is padded),
 * finished rows are dropped as they pile up, and a row can leave with a copy of its own positions.
 * The decode batcher (serving), greedyBatch and greedyAlong (the competence gate) all step here.
 */
export class PaddedBatch<R extends PaddedRow> {
  rows: R[] = [];

  /** @param cache the rows' keys and values (empty, or holding `rows`, left-padded as their `pad` says). */
  constructor(
    readonly cache: KVCache,
    rows: readonly R[] = [],
  ) {
    if (rows.length !== cache.batch) throw new RangeError(`PaddedBatch: ${rows.length} rows for a cache of ${cache.batch}`);
    this.rows = [...rows];
  }

  /** Rows not done. */
  get live(): number {
    return this.rows.filter((r) => !r.done).length;
  }

  /**
   * Appends `rows`, whose keys and values are `part` (left-padded as their `pad` says), padding
   * whichever side is shorter. Takes over `part`: it is disposed.
   */
  add(part: KVCache, rows: readonly R[]): void {
    try {
      if (rows.length !== part.batch) throw new RangeError(`PaddedBatch.add: ${rows.length} rows for a cache of ${part.batch}`);
      const S = this.rows.length ? this.cache.length : 0;
      const L = part.length;
      if (L < S) {
        part.padLeft(S - L);
        for (const r of rows) r.pad += S - L;
      } else if (L > S && this.rows.length) {
        this.cache.padLeft(L - S);
        for (const r of this.rows) r.pad += L - S;
      }
      this.cache.concatRows(part);
      this.rows.push(...rows);
    } finally {
      part.dispose();
    }
  }

  /**
   * One decode step: feeds `ids[b]` to row b (a done row gets anything: what it computes is never
   * read) and returns the logits for every row's next token, [B, 1, V], not read back. Rows not
   * done advance by one position.
   */
  step(lm: CausalLM, adapter: LoraAdapter | null, ids: readonly number[]): tf.Tensor {
    const rows = { start: this.rows.map((r) => r.start), pad: this.rows.map((r) => r.pad) };
    const out = lastLogits(lm, { cache: this.cache, adapter, rows }, ids, this.rows.length);
    for (const r of this.rows) if (!r.done) r.start++;
    return out;
  }

  /**
   * Drops done rows once they are at least a quarter of the live ones (each drop copies the
   * cache), then the left padding every remaining row shares. Returns true when it dropped any.
   */
  compact(): boolean {
    const live = this.live;
    if (this.rows.length - live < Math.max(1, live / 4)) return false;
    const keep = this.rows.flatMap((r, i) => (r.done ? [] : [i]));
    this.cache.selectRows(keep);
    this.rows = keep.map((i) => this.rows[i]);
    if (live > 0) this.trimCommonPad();
    return true;
  }

  /**
   * A one-row copy of `row`'s keys and values (its positions so far, without padding), or null
   * when it holds none yet.
   */
  copyRow(row: R): KVCache | null {
    const i = this.index(row);
    return row.start > 0 ? this.cache.rowSlice(i, row.pad, row.start) : null;
  }

  /** Takes `row` out of the batch with its keys and values, as a one-row cache of its own (no padding). */
  remove(row: R): KVCache {
    const i = this.index(row);
    const own = this.cache.rowSlice(i, row.pad, this.cache.length - row.pad);
    this.rows.splice(i, 1);
    this.cache.selectRows(this.rows.map((_, j) => (j < i ? j : j + 1)));
    row.pad = 0;
    return own;
  }

  dispose(): void {
    this.cache.dispose();
    this.rows = [];
  }

  private index(row: R): number {
    const i = this.rows.indexOf(row);
    if (i < 0) throw new RangeError('PaddedBatch: the row is not in this batch');
    return i;
  }

  private trimCommonPad(): void {
    const common = Math.min(...this.rows.map((r) => r.pad));
    if (common <= 0) return;
    this.cache.trimLeft(common);
    for (const r of this.rows) r.pad -= common;
  }
}
