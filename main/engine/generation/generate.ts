import * as tf from '@tensorflow/tfjs-core';
import type { CausalLM } from '../model/causalLM.js';
import type { BatchedSequence, DecodeBatcher } from './decodeBatcher.js';
import { KVCache } from '../model/kvCache.js';
import type { LoraAdapter } from '../model/lora.js';
import { logSoftmax, Sampler, topEntries, type SamplingOptions } from './sampling.js';
import type { TextTokenizer } from '../text/tokenizer.js';

export interface GenerateOptions extends SamplingOptions {
  /** Upper bound on generated tokens. Default 256. */
  maxNewTokens?: number;
  /** Seed for sampling; the same seed and inputs give the same tokens. Default: random. */
  seed?: number;
  /** Token ids that end generation (included in `tokens`, not in the text). Default: none. */
  stopTokenIds?: readonly number[];
  /** Strings that end generation; the text is cut before the first one. Default: none. */
  stopStrings?: readonly string[];
  /** LoRA adapter to generate with; null or absent uses the base model. */
  adapter?: LoraAdapter | null;
  /** Aborts between tokens; the result then has finishReason 'abort'. */
  signal?: AbortSignal;
  /** Return this many most likely alternatives (with log-probs) per token. Default 0. Max 20. */
  topLogprobs?: number;
  /**
   * Decode in a shared batch with other sequences running at the same time (continuous
   * batching). The prompt is still prefilled on its own. Default: decode alone.
   */
  batcher?: DecodeBatcher;
}

/** One generated token. */
export interface GeneratedToken {
  id: number;
  /** log π(id | context) under the model's own distribution (temperature 1, no top-k/top-p). */
  logprob: number;
  /** Text this token made final; '' while an incomplete character or a possible stop string is held back. */
  text: string;
  /** The most likely tokens at this position with their log-probs, when `topLogprobs` > 0. */
  top?: Array<{ id: number; logprob: number }>;
}

export type FinishReason = 'stop' | 'length' | 'abort';

export interface GenerationResult {
  /** Every sampled token id, including a stop token that ended generation. */
  tokens: number[];
  /** log-prob of each entry of `tokens` under the model (temperature 1). */
  logprobs: number[];
  /** The generated text, without a stop token and cut before a stop string. */
  text: string;
  finishReason: FinishReason;
  /** What stopped generation, when finishReason is 'stop'. */
  stoppedBy?: { tokenId: number } | { string: string };
  promptTokens: number;
  prefillMs: number;
  decodeMs: number;
}

export class ContextLengthError extends Error {
  override name = 'ContextLengthError';
  constructor(
    readonly promptTokens: number,
    readonly maxPositions: number,
  ) {
    super(`the prompt has ${promptTokens} tokens; the model's maximum context length is ${maxPositions} tokens`);
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of one of `stops`. */
function heldSuffix(text: string, stops: readonly string[]): number {
  let best = 0;
  for (const s of stops) {
    for (let n = Math.min(s.length - 1, text.length); n > best; n--) {
      if (text.endsWith(s.slice(0, n))) {
        best = n;
        break;
      }
    }
  }
  return best;
}

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Generates a continuation of `promptIds`: one prefill pass over the prompt, then one token per
 * step with a KV cache. Yields each token as it is sampled, with its log-prob and the text it
 * completes; returns the whole result. Runs on the calling thread; it yields to the event loop
 * between tokens so an AbortSignal can stop it.
 */
export async function* generate(
  lm: CausalLM,
  tokenizer: TextTokenizer,
  promptIds: readonly number[],
  opts: GenerateOptions = {},
): AsyncGenerator<GeneratedToken, GenerationResult, void> {
  if (promptIds.length === 0) throw new RangeError('generate: the prompt is empty');
  const maxPositions = lm.config.maxPositions;
  if (promptIds.length >= maxPositions) throw new ContextLengthError(promptIds.length, maxPositions);
  const maxNew = Math.min(opts.maxNewTokens ?? 256, maxPositions - promptIds.length);
  if (!(maxNew >= 0)) throw new RangeError(`generate: maxNewTokens must be >= 0, got ${opts.maxNewTokens}`);
  const topN = Math.min(Math.max(opts.topLogprobs ?? 0, 0), 20);
  const sampler = new Sampler(opts, opts.seed);
  const stopIds = new Set(opts.stopTokenIds ?? []);
  const stops = (opts.stopStrings ?? []).filter((s) => s.length > 0);
  const decoder = tokenizer.streamDecoder();
  const cache = new KVCache(lm.config.numLayers);
  const adapter = opts.adapter ?? null;

  const tokens: number[] = [];
  const logprobs: number[] = [];
  let text = ''; // emitted so far
  let pending = ''; // decoded but held back (possible stop-string prefix)
  let finishReason: FinishReason = 'length';
  let stoppedBy: GenerationResult['stoppedBy'];
  const t0 = performance.now();
  let prefillMs = 0;

  const prefill = (ids: number[]): Float32Array =>
    tf.tidy(() => {
      const input = tf.tensor2d(ids, [1, ids.length], 'int32');
      const logits = lm.forward(input, { cache, adapter, lastOnly: true });
      return logits.dataSync() as Float32Array;
    });
  // After the prefill the cache moves into the batcher, which steps all its sequences together.
  let batched: BatchedSequence | null = null;
  const step = async (id: number): Promise<Float32Array> => {
    if (opts.batcher) {
      batched ??= opts.batcher.join(cache, adapter);
      return opts.batcher.step(batched, id);
    }
    return prefill([id]);
  };

  try {
    if (opts.signal?.aborted) {
      finishReason = 'abort';
    } else if (maxNew > 0) {
      let logits = prefill([...promptIds]);
      prefillMs = performance.now() - t0;
      for (;;) {
        const id = sampler.sample(logits);
        const lp = logSoftmax(logits);
        tokens.push(id);
        logprobs.push(lp[id]);
        const top = topN > 0 ? topEntries(lp, topN).map((e) => ({ id: e.id, logprob: e.value })) : undefined;
        let delta = '';
        if (stopIds.has(id)) {
          finishReason = 'stop';
          stoppedBy = { tokenId: id };
          delta = pending + decoder.flush(); // no stop string can complete now
          pending = '';
        } else {
          pending += decoder.push(id);
          const hit = stops.length ? firstStop(pending, stops) : null;
          if (hit) {
            delta = pending.slice(0, hit.index);
            pending = '';
            finishReason = 'stop';
            stoppedBy = { string: hit.stop };
          } else {
            const keep = stops.length ? heldSuffix(pending, stops) : 0;
            delta = pending.slice(0, pending.length - keep);
            pending = pending.slice(pending.length - keep);
          }
        }
        text += delta;
        const done = finishReason === 'stop' || tokens.length >= maxNew;
        if (done && finishReason !== 'stop') {
          // Out of budget: release whatever is held back.
          const rest = pending + decoder.flush();
          pending = '';
          delta += rest;
          text += rest;
        }
        yield { id, logprob: lp[id], text: delta, top };
        if (done) break;
        await nextTick();
        if (opts.signal?.aborted) {
          finishReason = 'abort';
          break;
        }
        logits = await step(id);
      }
    }
  } finally {
    if (batched) opts.batcher!.leave(batched);
    else cache.dispose();
  }
  return {
    tokens,
    logprobs,
    text,
    finishReason,
    stoppedBy,
    promptTokens: promptIds.length,
    prefillMs,
    decodeMs: performance.now() - t0 - prefillMs,
  };
}

function firstStop(text: string, stops: readonly string[]): { index: number; stop: string } | null {
  let best: { index: number; stop: string } | null = null;
  for (const s of stops) {
    const i = text.indexOf(s);
    if (i >= 0 && (!best || i < best.index)) best = { index: i, stop: s };
  }
  return best;
}

/** Runs {@link generate} to completion and returns only the result. */
export async function generateText(
  lm: CausalLM,
  tokenizer: TextTokenizer,
  promptIds: readonly number[],
  opts: GenerateOptions = {},
): Promise<GenerationResult> {
  const it = generate(lm, tokenizer, promptIds, opts);
  for (;;) {
    const r = await it.next();
    if (r.done) return r.value;
  }
}
