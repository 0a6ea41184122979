import * as tf from '@tensorflow/tfjs-core';
import type { CausalLM } from '../model/causalLM.js';
import { KVCache } from '../model/kvCache.js';
import type { LoraAdapter } from '../model/lora.js';
import { readFloats } from '../model/tensorRead.js';
import { ContextLengthError } from './generate.js';
import { argmax } from './sampling.js';

/** A sequence to continue greedily: its context (a prompt, and any tokens already fixed after it). */
export interface GreedyItem {
  ids: readonly number[];
  /** Tokens it may add; a stop token counts. */
  maxNewTokens: number;
}

export interface GreedyBatchOptions {
  /** Token ids that end a sequence (included in its tokens). */
  stopTokenIds: readonly number[];
  adapter?: LoraAdapter | null;
  /** Sequences per prefill pass (similar lengths together, so little of it is padding). Default 16. */
  prefillBatch?: number;
}

/** A sequence in the shared cache: its context length, its left padding there, what it has made. */
export interface Row {
  item: number;
  /** Tokens of its context (the item's ids). */
  context: number;
  /** Cache slots before its first real one. */
  pad: number;
  tokens: number[];
  done: boolean;
}

/** The most likely token of each of B rows of logits, as the greedy sampler picks it. */
function argmaxRows(logits: Float32Array, B: number, V: number): number[] {
  return Array.from({ length: B }, (_, b) => argmax(logits.subarray(b * V, (b + 1) * V)).index);
}

/** Prefills one group of similar lengths, left-padded into a fresh cache; returns each row's first token. */
async function prefillGroup(lm: CausalLM, items: readonly GreedyItem[], group: number[], adapter: LoraAdapter | null): Promise<{ cache: KVCache; first: number[] }> {
  const L = Math.max(...group.map((i) => items[i].ids.length));
  const ids = new Int32Array(group.length * L);
  group.forEach((i, b) => ids.set(items[i].ids, b * L + L - items[i].ids.length));
  const pad = group.map((i) => L - items[i].ids.length);
  const cache = new KVCache(lm.config.numLayers);
  try {
    const out = tf.tidy(() =>
      lm.forward(tf.tensor2d(ids, [group.length, L], 'int32'), {
        cache,
        adapter,
        lastOnly: true,
        // Real tokens sit at positions 0…len−1 after their padding; the padding's queries see nothing real.
        rows: { start: pad.map((p) => -p), pad },
      }),
    );
    return { cache, first: argmaxRows(await readFloats(out), group.length, lm.config.vocabSize) };
  } catch (err) {
    cache.dispose();
    throw err;
  }
}

/**
 * Greedy continuations of many sequences at once, for checks that only need the argmax path (the
 * competence gate): each group of similar lengths is prefilled in one pass, then every sequence
 * decodes in one shared, left-padded KV cache, one forward pass per token for all of them, until
 * each has met a stop token or its budget. Rows that finish are dropped from the cache as they
 * pile up. Gives the tokens {@link generateText} gives at temperature 0, without its per-token
 * work (sampling, log-probs, text, stop strings) or a prefill per sequence.
 */
export async function greedyContinuations(lm: CausalLM, items: readonly GreedyItem[], opts: GreedyBatchOptions): Promise<number[][]> {
  const budget = items.map((it, i) => {
    if (it.ids.length === 0) throw new RangeError(`greedy: sequence ${i} is empty`);
    if (it.ids.length >= lm.config.maxPositions) throw new ContextLengthError(it.ids.length, lm.config.maxPositions);
    if (!(it.maxNewTokens >= 0)) throw new RangeError(`greedy: maxNewTokens must be >= 0, got ${it.maxNewTokens} (sequence ${i})`);
    return Math.min(it.maxNewTokens, lm.config.maxPositions - it.ids.length);
  });
  const order = items.map((_, i) => i).filter((i) => budget[i] > 0);
  order.sort((a, b) => items[a].ids.length - items[b].ids.length);
  const results: number[][] = items.map(() => []);
  if (order.length === 0) return results;
  const adapter = opts.adapter ?? null;
  const stop = new Set(opts.stopTokenIds);
  const size = Math.max(1, opts.prefillBatch ?? 16);
  const cache = new KVCache(lm.config.numLayers);
  try {
    const rows: Row[] = [];
    for (let s = 0; s < order.length; s += size) {
      const group = order.slice(s, s + size);
      const { cache: part, first } = await prefillGroup(lm, items, group, adapter);
      // Sorted by length, no group is shorter than the cache so far: the rows already there take the padding.
      const L = part.length;
      const grow = L - cache.length;
      try {
        cache.padLeft(grow);
        cache.concatRows(part);
      } finally {
        part.dispose();
      }
      for (const r of rows) r.pad += grow;
      for (const [b, i] of group.entries()) {
        const r: Row = { item: i, context: items[i].ids.length, pad: L - items[i].ids.length, tokens: [first[b]], done: false };
        r.done = stop.has(first[b]) || budget[i] <= 1;
        rows.push(r);
      }
    }
    await decodeRows(lm, cache, rows, adapter, (r, id) => stop.has(id) || r.tokens.length >= budget[r.item]);
    for (const r of rows) results[r.item] = r.tokens;
    return results;
  } finally {
    cache.dispose();
  }
}

/** Drops finished rows from the cache once they are a quarter of the live ones, and the padding every row left shares. */
function compact(cache: KVCache, rows: Row[]): Row[] {
  const live = rows.filter((r) => !r.done);
  if (rows.length - live.length < Math.max(1, live.length / 4)) return rows;
  if (live.length === 0) return live;
  cache.selectRows(rows.flatMap((r, i) => (r.done ? [] : [i])));
  const common = Math.min(...live.map((r) => r.pad));
  cache.trimLeft(common);
  for (const r of live) r.pad -= common;
  return live;
}

/**
 * One forward pass per token for every row still decoding, until `ends` says each is done: each
 * row's last token is its next input. The cache holds every row's context, left-padded.
 */
export async function decodeRows(
  lm: CausalLM,
  cache: KVCache,
  all: readonly Row[],
  adapter: LoraAdapter | null,
  ends: (r: Row, id: number) => boolean,
): Promise<void> {
  const V = lm.config.vocabSize;
  for (let rows = compact(cache, [...all]); rows.length > 0; rows = compact(cache, rows)) {
    const B = rows.length;
    // A finished row still in the cache is fed its last token; what it gets back is ignored.
    const ids = rows.map((r) => r.tokens[r.tokens.length - 1]);
    const out = tf.tidy(() =>
      lm.forward(tf.tensor2d(ids, [B, 1], 'int32'), {
        cache,
        adapter,
        lastOnly: true,
        rows: { start: rows.map((r) => r.context + r.tokens.length - 1), pad: rows.map((r) => r.pad) },
      }),
    );
    const next = argmaxRows(await readFloats(out), B, V);
    rows.forEach((r, b) => {
      if (r.done) return;
      r.tokens.push(next[b]);
      r.done = ends(r, next[b]);
    });
  }
}
