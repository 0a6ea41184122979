import type * as tf from '@tensorflow/tfjs-core';
import type { CausalLM } from '../model/causalLM.js';
import { KVCache } from '../model/kvCache.js';
import type { LoraAdapter } from '../model/lora.js';
import { readFloats } from '../model/tensorRead.js';
import { PaddedBatch, type PaddedRow } from './paddedBatch.js';

/** A sequence decoding inside a {@link DecodeBatcher}. */
export interface BatchedSequence {
  readonly id: number;
}

interface Row extends BatchedSequence, PaddedRow {
  group: Group | null;
  /** A private cache while the row is outside a group (evicted); its `start` and `pad` then describe it. */
  own: KVCache | null;
  adapter: LoraAdapter | null;
  pending: { token: number; resolve: (l: Float32Array) => void; reject: (e: Error) => void } | null;
}

interface Group {
  adapter: LoraAdapter | null;
  batch: PaddedBatch<Row>;
  scheduled: boolean;
  /** Flush attempts deferred while some rows had not asked for their next token yet. */
  deferrals: number;
  /** A step's logits are being read back; the next step waits for them. */
  running: boolean;
}

/**
 * Continuous batching of decode steps: sequences that run at the same time (each prefilled on its
 * own) share one left-padded KV cache per adapter, and each step feeds one token per sequence
 * through the model in a single forward pass. A sequence asks for its next logits with
 * {@link step}; the batch runs once every live sequence of its group has asked (on the next turn
 * of the event loop), so per-sequence work (sampling, stop strings, streaming) stays where it is.
 * Finished rows are dropped lazily; a sequence that stops asking is moved out to its own cache.
 */
export class DecodeBatcher {
  private readonly groups = new Map<LoraAdapter | null, Group>();
  private nextId = 0;
  /** Batched forward passes run, and rows they carried (for statistics). */
  steps = 0;
  rowsStepped = 0;

  constructor(private readonly lm: CausalLM) {}

  /** Sequences currently decoding. */
  get active(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.batch.live;
    return n;
  }

  /**
   * Adds a prefilled sequence. Takes over `cache` (a one-row cache holding the prompt); the caller
   * must not use or dispose it afterwards.
   */
  join(cache: KVCache, adapter: LoraAdapter | null): BatchedSequence {
    if (cache.batch !== 1) throw new RangeError(`join: the cache holds ${cache.batch} rows; expected 1`);
    const row: Row = { id: ++this.nextId, group: null, start: cache.length, pad: 0, own: cache, adapter, pending: null, done: false };
    this.attach(row);
    return row;
  }

  /** The logits for the token after `token`, once the batch has run. */
  step(seq: BatchedSequence, token: number): Promise<Float32Array> {
    const row = seq as Row;
    if (row.done) return Promise.reject(new Error('step: the sequence has left the batch'));
    if (row.pending) return Promise.reject(new Error('step: the previous step has not finished'));
    if (!row.group) this.attach(row);
    return new Promise((resolve, reject) => {
      row.pending = { token, resolve, reject };
      this.schedule(row.group!);
    });
  }

  /** Removes a sequence (finished, stopped or aborted). */
  leave(seq: BatchedSequence): void {
    const row = seq as Row;
    if (row.done) return;
    row.done = true;
    row.pending?.reject(new Error('the sequence left the batch'));
    row.pending = null;
    row.own?.dispose();
    row.own = null;
    const g = row.group;
    if (!g) return;
    if (g.batch.live === 0) {
      g.batch.dispose();
      this.groups.delete(g.adapter);
      return;
    }
    g.batch.compact();
    this.schedule(g);
  }

  /**
   * Removes a sequence like {@link leave} and returns a one-row copy of its keys and values (its
   * positions so far, without padding), or null when it holds none (it failed or already left).
   */
  detach(seq: BatchedSequence): KVCache | null {
    const row = seq as Row;
    let out: KVCache | null = null;
    if (!row.done && row.own) {
      out = row.own;
      row.own = null;
    } else if (!row.done && row.group) {
      out = row.group.batch.copyRow(row);
    }
    this.leave(seq);
    return out;
  }

  /** Frees every cache; pending steps fail. */
  dispose(): void {
    for (const g of this.groups.values()) {
      for (const r of g.batch.rows) {
        r.pending?.reject(new Error('the batcher was disposed'));
        r.done = true;
      }
      g.batch.dispose();
    }
    this.groups.clear();
  }

  /** Puts a row with a private cache into its adapter's group. */
  private attach(row: Row): void {
    let g = this.groups.get(row.adapter);
    if (!g) {
      g = {
        adapter: row.adapter,
        batch: new PaddedBatch<Row>(new KVCache(this.lm.config.numLayers)),
        scheduled: false,
        deferrals: 0,
        running: false,
      };
      this.groups.set(row.adapter, g);
    }
    const own = row.own!;
    row.own = null;
    row.group = g;
    g.batch.add(own, [row]);
  }

  private schedule(g: Group): void {
    if (g.scheduled) return;
    g.scheduled = true;
    setImmediate(() => {
      g.scheduled = false;
      this.flush(g);
    });
  }

  private flush(g: Group): void {
    if (this.groups.get(g.adapter) !== g) return;
    // One step at a time per group: the next waits until this one's logits are read back.
    if (g.running) return;
    const live = g.batch.rows.filter((r) => !r.done);
    if (!live.some((r) => r.pending)) return;
    const waiting = live.filter((r) => !r.pending);
    if (waiting.length) {
      // Give the others a few turns of the event loop to ask; then run without them.
      if (g.deferrals < 3) {
        g.deferrals++;
        this.schedule(g);
        return;
      }
      for (const r of waiting) this.evict(g, r);
    }
    g.deferrals = 0;
    const rows = [...g.batch.rows];
    let out: tf.Tensor;
    try {
      // Done rows are fed a placeholder; their slot is garbage they never read again.
      out = g.batch.step(
        this.lm,
        g.adapter,
        rows.map((r) => (r.pending ? r.pending.token : 0)),
      );
    } catch (err) {
      this.failGroup(g, rows, err as Error);
      return;
    }
    this.steps++;
    this.rowsStepped += rows.length;
    // The cache now holds this step: rows have advanced, their logits follow when read back.
    const waiters = rows.map((r) => {
      const p = r.pending;
      r.pending = null;
      return p;
    });
    g.running = true;
    void this.deliver(g, out, waiters);
  }

  /** Reads a step's logits back and hands each row its slice; a failed read fails the whole group. */
  private async deliver(g: Group, out: tf.Tensor, waiters: Array<Row['pending']>): Promise<void> {
    const V = this.lm.config.vocabSize;
    let logits: Float32Array;
    try {
      logits = await readFloats(out);
    } catch (err) {
      g.running = false;
      waiters.forEach((p) => p?.reject(err as Error));
      this.failGroup(g, g.batch.rows, err as Error);
      return;
    }
    g.running = false;
    waiters.forEach((p, b) => p?.resolve(logits.subarray(b * V, (b + 1) * V)));
    if (this.groups.get(g.adapter) === g && g.batch.rows.some((r) => r.pending)) this.schedule(g);
  }

  /** The cache may be half-updated: fails every row of the group and drops it. */
  private failGroup(g: Group, rows: readonly Row[], err: Error): void {
    for (const r of rows) {
      r.pending?.reject(err);
      r.pending = null;
      r.done = true;
    }
    g.batch.dispose();
    if (this.groups.get(g.adapter) === g) this.groups.delete(g.adapter);
  }

  /** Moves a row that has not asked for its next token out of the group, into its own cache. */
  private evict(g: Group, r: Row): void {
    r.own = g.batch.remove(r);
    r.group = null;
  }
}
