import * as tf from '@tensorflow/tfjs-core';
import type { CausalLM } from '../model/causalLM.js';
import type { KVCache } from '../model/kvCache.js';
import type { LoraAdapter } from '../model/lora.js';
import { argmax } from './sampling.js';

// The step every decoding path shares (serving and the judge through TokenSteps and DecodeBatcher,
// the competence gate through greedyBatch and greedyAlong): run the model on each row's new tokens
// with the KV cache, pick the next token, decide whether the sequence ends.

/** Where each row of a shared, left-padded cache stands (CausalLM's `rows` option; see PaddedBatch). */
export interface RowLayout {
  /** Position of each row's first new token. */
  start: readonly number[];
  /** Cache slots before each row's first real one. */
  pad: readonly number[];
}

/** The cache and weights a step runs with. */
export interface StepContext {
  /** Receives the new tokens' keys and values. */
  cache: KVCache;
  /** LoRA adapter (null: the base model). */
  adapter: LoraAdapter | null;
  /** Rows of different lengths in `cache`; absent: every row continues from the cache's length. */
  rows?: RowLayout;
}

/**
 * Feeds `ids` ([B, T], row-major: T new tokens per row, T = ids.length / B) through the model and
 * returns the logits after each row's last one, [B, 1, V], not read back: a caller may advance its
 * bookkeeping while the backend computes. The cache then holds the new tokens.
 */
export function lastLogits(lm: CausalLM, ctx: StepContext, ids: ArrayLike<number>, B: number): tf.Tensor {
  const T = ids.length / B;
  if (!Number.isInteger(T) || T < 1) throw new RangeError(`lastLogits: ${ids.length} token ids for ${B} rows`);
  return tf.tidy(() => lm.forward(tf.tensor2d(Int32Array.from(ids), [B, T], 'int32'), { ...ctx, lastOnly: true }));
}

/** The most likely token of each of B rows of logits ([B, V], flat), as the greedy sampler picks it. */
export function greedyPicks(logits: Float32Array, B: number, V: number): number[] {
  return Array.from({ length: B }, (_, b) => argmax(logits.subarray(b * V, (b + 1) * V)).index);
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

/**
 * The number of tokens a sequence with `context` tokens may add: `maxNewTokens`, cut to the room
 * the model's context leaves. `what` names the sequence in errors ("generate", "greedy: sequence 3").
 */
export function tokenBudget(lm: CausalLM, context: number, maxNewTokens: number, what: string): number {
  if (context === 0) throw new RangeError(`${what}: the prompt is empty`);
  const maxPositions = lm.config.maxPositions;
  if (context >= maxPositions) throw new ContextLengthError(context, maxPositions);
  if (!(maxNewTokens >= 0)) throw new RangeError(`${what}: maxNewTokens must be >= 0, got ${maxNewTokens}`);
  return Math.min(maxNewTokens, maxPositions - context);
}

/** Why a sequence ends after a token: a stop token, or its budget spent. */
export type StepEnd = 'stop' | 'length' | null;

/** A sequence ends on a stop token (which it keeps), or once it has made `budget` tokens. */
export function stepEnd(stopIds: ReadonlySet<number>, id: number, made: number, budget: number): StepEnd {
  if (stopIds.has(id)) return 'stop';
  return made >= budget ? 'length' : null;
}
