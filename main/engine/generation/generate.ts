import type { CausalLM } from '../model/causalLM.js';
import type { DecodeBatcher } from './decodeBatcher.js';
import type { LoraAdapter } from '../model/lora.js';
import type { PrefixCache } from './prefixCache.js';
import { gpuPicker } from './gpuPicker.js';
import type { SamplingOptions } from './sampling.js';
import { StopStringText } from './stopStrings.js';
import type { TextTokenizer } from '../text/tokenizer.js';
import { LogitPicker } from './tokenPicks.js';
import { ContextLengthError, stepEnd, tokenBudget, type StepEnd } from './decodeStep.js';

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
  /**
   * Reuse the keys and values of the longest cached prefix of the prompt, and leave this
   * generation's prompt and tokens there for later requests. Default: none (every prompt is
   * computed in full).
   */
  prefixCache?: PrefixCache;
  /**
   * Names the adapter's weights for the prefix cache: change it whenever `adapter` is trained in
   * place, so no entry computed with its old weights is reused. Default 0.
   */
  adapterVersion?: number;
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
  /** Prompt tokens whose keys and values came from the prefix cache (not computed). */
  cachedPromptTokens: number;
  /** From the start to the first token's logits: the time to first token, less sampling. */
  prefillMs: number;
  decodeMs: number;
}

export { ContextLengthError };

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The text token `id` (the `made`-th of at most `budget`) makes final, and whether and why
 * generation ends with it: a stop token, a stop string completed in the text, or the budget spent.
 */
function advance(
  out: StopStringText,
  stopIds: ReadonlySet<number>,
  id: number,
  made: number,
  budget: number,
): { delta: string; end: StepEnd; stoppedBy: GenerationResult['stoppedBy'] } {
  const end = stepEnd(stopIds, id, made, budget);
  if (end === 'stop') return { delta: out.flush(), end, stoppedBy: { tokenId: id } }; // no stop string can complete now
  const r = out.push(id);
  if (r.stop !== null) return { delta: r.delta, end: 'stop', stoppedBy: { string: r.stop } };
  // Out of budget: release whatever is held back.
  return { delta: end === 'length' ? r.delta + out.flush() : r.delta, end, stoppedBy: undefined };
}

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
  const maxNew = tokenBudget(lm, promptIds.length, opts.maxNewTokens ?? 256, 'generate');
  const topN = Math.min(Math.max(opts.topLogprobs ?? 0, 0), 20);
  const stopIds = new Set(opts.stopTokenIds ?? []);
  const out = new StopStringText(
    tokenizer.streamDecoder(),
    (opts.stopStrings ?? []).filter((s) => s.length > 0),
  );
  const pickerOpts = { ...opts, topN };
  // Sampled on the GPU where the WebGPU decoder applies (only ids come back), else from read-back logits.
  const steps = (await gpuPicker(lm, promptIds.length + maxNew, pickerOpts)) ?? new LogitPicker(lm, pickerOpts);
  const tokens: number[] = [];
  const logprobs: number[] = [];
  let finishReason: FinishReason = 'length';
  let stoppedBy: GenerationResult['stoppedBy'];
  const t0 = performance.now();
  let prefillMs = 0;
  try {
    if (opts.signal?.aborted) {
      finishReason = 'abort';
    } else if (maxNew > 0) {
      let pick = await steps.first(promptIds);
      prefillMs = performance.now() - t0;
      for (;;) {
        const { id, logprob, top } = pick;
        tokens.push(id);
        logprobs.push(logprob);
        const made = advance(out, stopIds, id, tokens.length, maxNew);
        if (made.end) finishReason = made.end;
        stoppedBy = made.stoppedBy;
        yield { id, logprob, text: made.delta, top };
        if (made.end) break;
        await nextTick();
        if (opts.signal?.aborted) {
          finishReason = 'abort';
          break;
        }
        pick = await steps.next(id);
      }
    }
  } finally {
    steps.close();
  }
  const decodeMs = performance.now() - t0 - prefillMs;
  const promptTokens = promptIds.length;
  return { tokens, logprobs, text: out.text, finishReason, stoppedBy, promptTokens, cachedPromptTokens: steps.reused, prefillMs, decodeMs };
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
