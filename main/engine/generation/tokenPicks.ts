import type { CausalLM } from '../model/causalLM.js';
import type { LoraAdapter } from '../model/lora.js';
import type { DecodeBatcher } from './decodeBatcher.js';
import type { PrefixCache } from './prefixCache.js';
import { logSoftmax, Sampler, topEntries, type SamplingOptions } from './sampling.js';
import { TokenSteps } from './tokenSteps.js';

/** One chosen token: its id, its log-prob (temperature 1) and, when asked, the likeliest alternatives. */
export interface TokenPick {
  id: number;
  logprob: number;
  top?: Array<{ id: number; logprob: number }>;
}

/** Where a generation's tokens come from: the token after the prompt, then one after each token fed. */
export interface TokenPicker {
  first(promptIds: readonly number[]): Promise<TokenPick>;
  next(id: number): Promise<TokenPick>;
  /** Prompt tokens whose keys and values came from a prefix cache. */
  readonly reused: number;
  close(): void;
}

/** What a picker is built from (a subset of GenerateOptions). */
export interface PickerOptions extends SamplingOptions {
  seed?: number;
  adapter?: LoraAdapter | null;
  batcher?: DecodeBatcher;
  prefixCache?: PrefixCache;
  adapterVersion?: number;
  /** Alternatives per token (0–20). */
  topN: number;
}

/** Logits read back after each model call (TokenSteps) and sampled on the CPU. */
export class LogitPicker implements TokenPicker {
  private readonly steps: TokenSteps;
  private readonly sampler: Sampler;

  constructor(
    lm: CausalLM,
    private readonly opts: PickerOptions,
  ) {
    this.sampler = new Sampler(opts, opts.seed);
    this.steps = new TokenSteps(lm, opts.adapter ?? null, opts.batcher, opts.prefixCache, opts.adapterVersion ?? 0);
  }

  get reused(): number {
    return this.steps.reused;
  }

  async first(promptIds: readonly number[]): Promise<TokenPick> {
    return this.pick(await this.steps.prefill(promptIds));
  }

  async next(id: number): Promise<TokenPick> {
    return this.pick(await this.steps.step(id));
  }

  private pick(logits: Float32Array): TokenPick {
    const id = this.sampler.sample(logits);
    const lp = logSoftmax(logits);
    const top = this.opts.topN > 0 ? topEntries(lp, this.opts.topN).map((e) => ({ id: e.id, logprob: e.value })) : undefined;
    return { id, logprob: lp[id], top };
  }

  close(): void {
    this.steps.close();
  }
}
