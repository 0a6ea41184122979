import type { CausalLM } from '../model/causalLM.js';
import { KVCache } from '../model/kvCache.js';
import type { LoraAdapter } from '../model/lora.js';
import { readFloats } from '../model/tensorRead.js';
import { greedyPicks, lastLogits, stepEnd, tokenBudget } from './decodeStep.js';
import { PaddedBatch, type PaddedRow } from './paddedBatch.js';

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

/** A sequence decoding greedily in a shared cache: which item it continues, and what it has made. */
export interface GreedyRow extends PaddedRow {
  item: number;
  /** Its tokens so far; the last one is its next input. */
  tokens: number[];
}

/** Prefills one group of similar lengths, left-padded into a fresh cache; returns each row's first token. */
async function prefillGroup(
  lm: CausalLM,
  items: readonly GreedyItem[],
  group: number[],
  adapter: LoraAdapter | null,
): Promise<{ cache: KVCache; first: number[] }> {
  const L = Math.max(...group.map((i) => items[i].ids.length));
  const ids = new Int32Array(group.length * L);
  group.forEach((i, b) => ids.set(items[i].ids, b * L + L - items[i].ids.length));
  const pad = group.map((i) => L - items[i].ids.length);
  const cache = new KVCache(lm.config.numLayers);
  try {
    // Real tokens sit at positions 0…len−1 after their padding; the padding's queries see nothing real.
    const out = lastLogits(lm, { cache, adapter, rows: { start: pad.map((p) => -p), pad } }, ids, group.length);
    return { cache, first: greedyPicks(await readFloats(out), group.length, lm.config.vocabSize) };
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
  const budget = items.map((it, i) => tokenBudget(lm, it.ids.length, it.maxNewTokens, `greedy: sequence ${i}`));
  const order = items.map((_, i) => i).filter((i) => budget[i] > 0);
  order.sort((a, b) => items[a].ids.length - items[b].ids.length);
  const results: number[][] = items.map(() => []);
  if (order.length === 0) return results;
  const adapter = opts.adapter ?? null;
  const stop = new Set(opts.stopTokenIds);
  const size = Math.max(1, opts.prefillBatch ?? 16);
  const batch = new PaddedBatch<GreedyRow>(new KVCache(lm.config.numLayers));
  const all: GreedyRow[] = [];
  try {
    for (let s = 0; s < order.length; s += size) {
      const group = order.slice(s, s + size);
      const { cache: part, first } = await prefillGroup(lm, items, group, adapter);
      const rows = group.map((i, b): GreedyRow => {
        const done = stepEnd(stop, first[b], 1, budget[i]) !== null;
        return { item: i, start: items[i].ids.length, pad: part.length - items[i].ids.length, tokens: [first[b]], done };
      });
      // Sorted by length, no group is shorter than the cache so far: the rows already there take the padding.
      batch.add(part, rows);
      all.push(...rows);
    }
    await decodeRows(lm, batch, adapter, (r, id) => stepEnd(stop, id, r.tokens.length, budget[r.item]) !== null);
    for (const r of all) results[r.item] = r.tokens;
    return results;
  } finally {
    batch.dispose();
  }
}

/**
 * One forward pass per token for every row of `batch` still decoding, until `ends` says each is
 * done: each row's last token is its next input, its greedy pick the next. Finished rows are
 * dropped from the batch as they pile up.
 */
export async function decodeRows(
  lm: CausalLM,
  batch: PaddedBatch<GreedyRow>,
  adapter: LoraAdapter | null,
  ends: (r: GreedyRow, id: number) => boolean,
): Promise<void> {
  for (batch.compact(); batch.live > 0; batch.compact()) {
    const rows = batch.rows;
    // A finished row still in the cache is fed its last token; what it gets back is ignored.
    const out = batch.step(
      lm,
      adapter,
      rows.map((r) => r.tokens[r.tokens.length - 1]),
    );
    const next = greedyPicks(await readFloats(out), rows.length, lm.config.vocabSize);
    rows.forEach((r, b) => {
      if (r.done) return;
      r.tokens.push(next[b]);
      r.done = ends(r, next[b]);
    });
  }
}
