import * as tf from '@tensorflow/tfjs-core';
import type { CausalLM } from '../model/causalLM.js';
import { KVCache } from '../model/kvCache.js';
import type { LoraAdapter } from '../model/lora.js';
import { readFloats } from '../model/tensorRead.js';
import type { BatchedSequence, DecodeBatcher } from './decodeBatcher.js';
import type { PrefixCache, PrefixKey } from './prefixCache.js';
import { lastLogits, type StepContext } from './decodeStep.js';

/**
 * The most prompt tokens one forward pass takes (llama.cpp's default batch is 512 to 2,048). A long
 * prompt is prefilled in chunks that continue in the KV cache: the composite attention holds a
 * [heads, chunk, positions] score matrix instead of [heads, prompt, prompt] (6.4 GB for a
 * 10,000-token agent prompt on a 16-head model), and skips the masked half it would compute.
 */
export const PREFILL_CHUNK = 1024;

/**
 * The model calls of one generation: the prompt's prefill into a KV cache (starting from the
 * longest cached prefix when a prefix cache is given), then one forward pass per token, alone or,
 * with a batcher, together with the other sequences it is decoding. At the end the prefix cache
 * keeps the prompt and the tokens fed after it, so the session's next turn starts from there.
 */
export class TokenSteps {
  private cache: KVCache;
  // After the prefill the cache moves into the batcher, which steps all its sequences together.
  private batched: BatchedSequence | null = null;
  /** The token ids whose keys and values the cache holds, in order. */
  private readonly fed: number[] = [];
  private readonly key: PrefixKey;
  /** Prompt tokens whose keys and values came from the prefix cache. */
  reused = 0;

  constructor(
    private readonly lm: CausalLM,
    private readonly adapter: LoraAdapter | null,
    private readonly batcher: DecodeBatcher | undefined,
    private readonly prefix: PrefixCache | undefined,
    adapterVersion: number,
  ) {
    this.cache = new KVCache(lm.config.numLayers);
    this.key = { adapter, version: adapterVersion };
  }

  /** Logits after the prompt `ids`: computes only what the prefix cache does not hold. */
  async prefill(ids: readonly number[]): Promise<Float32Array> {
    const found = this.prefix?.take(ids, this.key) ?? null;
    if (found) {
      this.cache.dispose();
      this.cache = found;
      this.reused = found.length;
    }
    const rest = ids.slice(this.reused);
    for (let i = PREFILL_CHUNK; i < rest.length; i += PREFILL_CHUNK) {
      // Only the last position's logits are needed: the chunks before it stop at the hidden state.
      const chunk = rest.slice(i - PREFILL_CHUNK, i);
      tf.tidy(() => {
        this.lm.hidden(tf.tensor2d(chunk, [1, chunk.length], 'int32'), this.options());
      });
    }
    const logits = this.forward(rest.slice(Math.floor((rest.length - 1) / PREFILL_CHUNK) * PREFILL_CHUNK));
    this.fed.push(...ids);
    // Shared, not copied: requests arriving while this one decodes (another session with the same
    // system prompt) already find its prompt.
    this.prefix?.put(this.fed, this.cache.share(), this.key);
    return readFloats(logits);
  }

  /** Logits after one more token. */
  async step(id: number): Promise<Float32Array> {
    if (!this.batcher) {
      const logits = this.forward([id]);
      this.fed.push(id);
      return readFloats(logits);
    }
    this.batched ??= this.batcher.join(this.cache, this.adapter);
    const logits = this.batcher.step(this.batched, id);
    this.fed.push(id);
    return logits;
  }

  /** Frees the cache, or hands it (prompt and answer so far) to the prefix cache. */
  close(): void {
    let last: KVCache | null = this.cache;
    if (this.batched) last = this.prefix ? this.batcher!.detach(this.batched) : (this.batcher!.leave(this.batched), null);
    if (!last) return;
    // A forward pass that failed half-way leaves a cache that does not match the tokens fed.
    if (this.prefix && last.length === this.fed.length && last.length > 0) this.prefix.put(this.fed, last, this.key);
    else last.dispose();
  }

  private forward(ids: readonly number[]): tf.Tensor {
    return lastLogits(this.lm, this.options(), ids, 1);
  }

  private options(): StepContext {
    return { cache: this.cache, adapter: this.adapter };
  }
}
