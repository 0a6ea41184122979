import * as tf from '@tensorflow/tfjs-core';
import type { CausalLM } from '../model/causalLM.js';
import type { KVCache } from '../model/kvCache.js';
import type { LoraAdapter } from '../model/lora.js';
import { readAll } from '../model/tensorRead.js';
import { pickTargets } from '../model/tensorUtil.js';
import { logSoftmax, targetLogprobs } from '../ops/logSoftmax.js';

/** A response to score by teacher forcing after a prompt. */
export interface ScoreItem {
  promptIds: readonly number[];
  responseIds: readonly number[];
}

export interface ScoreOptions {
  /** LoRA adapter to score with; null or absent scores with the base model. */
  adapter?: LoraAdapter | null;
  /** Also return the topK most likely tokens at each response position. Default 0. */
  topK?: number;
  /** Sequences per forward pass. Default 8. */
  batchSize?: number;
  /** Checked between batches. */
  signal?: AbortSignal;
}

export interface ScoredResponse {
  /** log π(response[j] | prompt, response[<j]) for each response token. */
  logprobs: Float32Array;
  /** Per response position, the topK tokens and their log-probs (largest first). */
  top?: Array<Array<{ id: number; logprob: number }>>;
}

/** One batch laid out for the model: right-padded ids [B, T], and the rows that predict response tokens. */
function layoutBatch(items: readonly ScoreItem[], batch: readonly number[]): { T: number; ids: Int32Array; rows: number[]; targets: number[] } {
  const T = Math.max(...batch.map((i) => items[i].promptIds.length + items[i].responseIds.length - 1));
  const ids = new Int32Array(batch.length * T);
  const rows: number[] = [];
  const targets: number[] = [];
  batch.forEach((i, b) => {
    const { promptIds: p, responseIds: r } = items[i];
    ids.set([...p, ...r.slice(0, -1)], b * T);
    for (let j = 0; j < r.length; j++) {
      rows.push(b * T + p.length - 1 + j);
      targets.push(r[j]);
    }
  });
  return { T, ids, rows, targets };
}

/**
 * Logits [N, V] of the rows that predict the batch's response tokens, in batch order, and those
 * tokens (inside a tidy). With `cache` (empty), the batch's keys and values are left in it: row b's
 * position t is the batch's b-th sequence's token t, up to its length (the rest is padding).
 */
function responseLogits(
  lm: CausalLM,
  items: readonly ScoreItem[],
  batch: readonly number[],
  adapter: LoraAdapter | null,
  cache?: KVCache,
): { logits: tf.Tensor2D; targets: number[] } {
  const { T, ids, rows, targets } = layoutBatch(items, batch);
  const h = lm.hidden(tf.tensor2d(ids, [batch.length, T], 'int32'), { adapter, cache });
  return { logits: lm.head(tf.gather(h, tf.tensor1d(rows, 'int32'))) as tf.Tensor2D, targets };
}

/** Log-probs of the batch's response tokens, in batch order, and their top-K alternatives. */
async function scoreBatch(
  lm: CausalLM,
  items: readonly ScoreItem[],
  batch: number[],
  topK: number,
  opts: ScoreOptions,
): Promise<ScoredResponse[]> {
  const outs = tf.tidy(() => {
    const { logits, targets } = responseLogits(lm, items, batch, opts.adapter ?? null);
    if (!topK) return [targetLogprobs(logits, targets)];
    const logp = logSoftmax(logits);
    const picked = pickTargets(logp, targets);
    const tk = tf.topk(logp, topK);
    return [picked, tk.values, tk.indices];
  });
  const read = await readAll(outs);
  const lp = read[0] as Float32Array;
  const topVals = topK ? (read[1] as Float32Array) : null;
  const topIds = topK ? (read[2] as Int32Array) : null;
  let n = 0;
  return batch.map((i) => {
    const R = items[i].responseIds.length;
    const res: ScoredResponse = { logprobs: lp.slice(n, n + R) };
    if (topVals && topIds) {
      res.top = [];
      for (let j = 0; j < R; j++) {
        const base = (n + j) * topK;
        res.top.push(Array.from({ length: topK }, (_, k) => ({ id: topIds[base + k], logprob: topVals[base + k] })));
      }
    }
    n += R;
    return res;
  });
}

/**
 * Runs `each` on the items with a response, `batchSize` at a time, similar lengths together (little
 * compute goes to padding): checks every item fits the model first, the signal before each batch,
 * and yields to the event loop after each.
 */
export async function forEachBatch(lm: CausalLM, items: readonly ScoreItem[], opts: ScoreOptions, each: (batch: number[]) => Promise<void>): Promise<void> {
  const batchSize = Math.max(1, opts.batchSize ?? 8);
  const order = checkedOrder(lm, items);
  for (let start = 0; start < order.length; start += batchSize) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    await each(order.slice(start, start + batchSize));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Checks every item fits the model; returns those with a response, sorted by length. */
function checkedOrder(lm: CausalLM, items: readonly ScoreItem[]): number[] {
  items.forEach((it, i) => {
    if (it.promptIds.length === 0) throw new RangeError(`score: item ${i} has an empty prompt; the first response token needs context`);
    const len = it.promptIds.length + it.responseIds.length - 1;
    if (len > lm.config.maxPositions)
      throw new RangeError(`score: item ${i} has ${len} tokens; the model's maximum context length is ${lm.config.maxPositions}`);
  });
  const order = items.map((_, i) => i).filter((i) => items[i].responseIds.length > 0);
  return order.sort((a, b) => items[a].promptIds.length + items[a].responseIds.length - (items[b].promptIds.length + items[b].responseIds.length));
}

/**
 * Teacher-forced log-probabilities of given response tokens after given prompt tokens, batched.
 * Sequences are right-padded (the causal mask keeps padding from affecting real positions) and
 * only the rows that predict response tokens are projected onto the vocabulary.
 */
export async function scoreResponses(lm: CausalLM, items: readonly ScoreItem[], opts: ScoreOptions = {}): Promise<ScoredResponse[]> {
  const topK = Math.max(0, Math.min(opts.topK ?? 0, lm.config.vocabSize));
  const results: ScoredResponse[] = items.map(() => ({ logprobs: new Float32Array(0), top: topK ? [] : undefined }));
  await forEachBatch(lm, items, opts, async (batch) => {
    (await scoreBatch(lm, items, batch, topK, opts)).forEach((r, b) => (results[batch[b]] = r));
  });
  return results;
}

/**
 * The model's most likely token at each response position, given the response so far (teacher
 * forcing): what a greedy decoder would pick there. For checks that only compare argmaxes (the
 * competence gate's diff against earlier answers), without the log-softmax and top-K that
 * {@link scoreResponses} computes over the whole vocabulary. Default 8 sequences per pass: on the
 * bundled model and a 2-core CPU, 0.65 s for the gate's 96 answers against 0.77–0.82 s in passes of
 * 16 (smaller activations stay in cache); not measured on a GPU.
 */
export async function greedyTokens(lm: CausalLM, items: readonly ScoreItem[], opts: Omit<ScoreOptions, 'topK'> = {}): Promise<Int32Array[]> {
  const results: Int32Array[] = items.map(() => new Int32Array(0));
  await forEachBatch(lm, items, opts, async (batch) => {
    (await greedyTokensOf(lm, items, batch, opts.adapter ?? null)).forEach((picked, b) => (results[batch[b]] = picked));
  });
  return results;
}

/**
 * {@link greedyTokens} for one batch of items (indices into `items`, each with a response), in
 * batch order; with `cache` (empty), the batch's keys and values are left in it (responseLogits).
 */
export async function greedyTokensOf(
  lm: CausalLM,
  items: readonly ScoreItem[],
  batch: readonly number[],
  adapter: LoraAdapter | null,
  cache?: KVCache,
): Promise<Int32Array[]> {
  const picked = tf.tidy(() => tf.argMax(responseLogits(lm, items, batch, adapter, cache).logits, -1));
  const all = (await readAll([picked]))[0] as Int32Array;
  let n = 0;
  return batch.map((i) => {
    const R = items[i].responseIds.length;
    n += R;
    return all.slice(n - R, n);
  });
}

/** log p(ids[t] | ids[<t]) for every t (null for the first token): exactly the given tokens, nothing added. */
export async function tokenLogprobs(lm: CausalLM, ids: readonly number[], opts: ScoreOptions = {}): Promise<Array<number | null>> {
  if (ids.length === 0) return [];
  const [scored] = await scoreResponses(lm, [{ promptIds: ids.slice(0, 1), responseIds: ids.slice(1) }], opts);
  return [null, ...Array.from(scored.logprobs)];
}
