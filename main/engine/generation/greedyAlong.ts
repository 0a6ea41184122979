import type { CausalLM } from '../model/causalLM.js';
import { KVCache } from '../model/kvCache.js';
import type { LoraAdapter } from '../model/lora.js';
import { stepEnd } from './decodeStep.js';
import { decodeRows, greedyContinuations, type GreedyRow } from './greedyBatch.js';
import { PaddedBatch } from './paddedBatch.js';
import { forEachBatch, greedyTokensOf, type ScoreItem } from './score.js';

/** A prompt, another policy's greedy answer to it, and how many tokens an answer may have. */
export interface AlongItem {
  promptIds: readonly number[];
  /** The other policy's answer (a final stop token included, if it had one), made with the same `maxTokens`: it is not cut to it. */
  referenceIds: readonly number[];
  maxTokens: number;
}

export interface AlongOptions {
  /** Token ids that end an answer (included in its tokens). */
  stopTokenIds: readonly number[];
  adapter?: LoraAdapter | null;
  /** Sequences per teacher-forced pass. Default 8 (greedyTokens). */
  batchSize?: number;
}

export interface AlongAnswers {
  /** The policy's greedy answer to each prompt. */
  ids: number[][];
  /** Answers that were generated: those that part from their reference, and those with an empty one. */
  diverged: number;
}

/** An answer that leaves its reference: where it does, and the row that decodes its rest (when it goes on). */
interface Divergence {
  item: number;
  /** Reference tokens it shares, before the token where it parts. */
  shared: number;
  /** Its tokens so far: the shared ones and the first of its own. */
  prefix: number[];
  /** The keys and values of its prompt and shared tokens, while it still has tokens to decode. */
  part: KVCache | null;
  /** Tokens it may still have, the first of its own included. */
  budget: number;
}

/**
 * Greedy answers of a policy, given another policy's greedy answers to the same prompts (the
 * competence gate's diff of a candidate against the live policy). One teacher-forced pass reads
 * each reference under this policy: where the policy's most likely token is the reference's at
 * every position, its greedy answer *is* the reference (greedy decoding is a function of those
 * argmaxes). An answer that parts from its reference is decoded on from the first token where it
 * does, starting from the keys and values the pass computed for its prompt and the tokens it
 * shares, so nothing is read twice: the diverging rows are stacked in one left-padded cache and
 * decode together (greedyBatch's decodeRows). Answers with an empty reference are decoded from
 * their prompt.
 */
export async function greedyAlongReferences(lm: CausalLM, items: readonly AlongItem[], opts: AlongOptions): Promise<AlongAnswers> {
  const adapter = opts.adapter ?? null;
  const stop = new Set(opts.stopTokenIds);
  const ids = items.map((it) => [...it.referenceIds]);
  const scored: ScoreItem[] = items.map((it) => ({ promptIds: it.promptIds, responseIds: it.referenceIds }));
  const parted: Divergence[] = [];
  try {
    await forEachBatch(lm, scored, { batchSize: opts.batchSize }, async (batch) => {
      const cache = new KVCache(lm.config.numLayers);
      try {
        const picked = await greedyTokensOf(lm, scored, batch, adapter, cache);
        batch.forEach((i, b) => {
          const d = divergence(lm, items[i], i, picked[b]);
          if (!d) return;
          // An answer whose own first token ends it, or that has no room for more, is complete.
          if (d.budget > 1 && !stop.has(d.prefix[d.shared])) d.part = cache.rowPrefix(b, items[i].promptIds.length + d.shared);
          parted.push(d);
        });
      } finally {
        cache.dispose();
      }
    });
    await decodeParted(lm, items, parted, adapter, stop);
    for (const d of parted) ids[d.item] = d.prefix;
  } finally {
    for (const d of parted) d.part?.dispose();
  }
  const fresh = items.map((_, i) => i).filter((i) => items[i].referenceIds.length === 0);
  if (fresh.length) {
    const tails = await greedyContinuations(
      lm,
      fresh.map((i) => ({ ids: items[i].promptIds, maxNewTokens: items[i].maxTokens })),
      { stopTokenIds: opts.stopTokenIds, adapter },
    );
    fresh.forEach((i, k) => (ids[i] = tails[k]));
  }
  return { ids, diverged: parted.length + fresh.length };
}

/** Where the policy's argmaxes along a reference first differ from it, or null when they never do. */
function divergence(lm: CausalLM, item: AlongItem, index: number, picked: Int32Array): Divergence | null {
  const ref = item.referenceIds;
  const j = picked.findIndex((id, pos) => id !== ref[pos]);
  if (j < 0) return null;
  const prefix = [...ref.slice(0, j), picked[j]];
  // The answer's own tokens count against its budget and the model's context from the first one on.
  const budget = Math.min(item.maxTokens - j, lm.config.maxPositions - item.promptIds.length - j);
  return { item: index, shared: j, prefix, part: null, budget };
}

/** Decodes the rest of every answer that parted from its reference and still has tokens to make, in one shared cache. */
async function decodeParted(
  lm: CausalLM,
  items: readonly AlongItem[],
  parted: readonly Divergence[],
  adapter: LoraAdapter | null,
  stop: ReadonlySet<number>,
): Promise<void> {
  const open = parted.filter((d) => d.part !== null);
  if (open.length === 0) return;
  const { cache, pad } = KVCache.stack(open.map((d) => d.part!));
  for (const d of open) {
    d.part!.dispose();
    d.part = null;
  }
  const rows: GreedyRow[] = open.map((d, k) => ({
    item: k,
    start: items[d.item].promptIds.length + d.shared,
    pad: pad[k],
    tokens: [d.prefix[d.shared]],
    done: false,
  }));
  const batch = new PaddedBatch(cache, rows);
  try {
    await decodeRows(lm, batch, adapter, (r, id) => stepEnd(stop, id, r.tokens.length, open[r.item].budget) !== null);
    rows.forEach((r, k) => open[k].prefix.push(...r.tokens.slice(1)));
  } finally {
    batch.dispose();
  }
}
