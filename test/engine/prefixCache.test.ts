import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { defaultBackendName, initBackend } from '../../main/engine/backends/backend.js';
import { PrefixCache, type PrefixKey } from '../../main/engine/generation/prefixCache.js';
import { defaultPrefixCacheBytes, kvBytesPerToken, prefixCacheBytesFromEnv } from '../../main/engine/generation/prefixCacheBudget.js';
import { parseModelConfig } from '../../main/engine/model/config.js';
import { KVCache } from '../../main/engine/model/kvCache.js';
import type { LoraAdapter } from '../../main/engine/model/lora.js';
import { prefixCacheSuite } from './prefixCacheSuite.js';

/** A one-row cache (2 layers, 1 head of 2 dims) whose value at slot s is ids[s] (keys the same, transposed). */
function cacheOf(ids: readonly number[]): KVCache {
  const c = new KVCache(2);
  for (let l = 0; l < 2; l++) {
    const v = tf.tidy(() => tf.tile(tf.reshape(tf.tensor1d([...ids]), [1, 1, ids.length, 1]), [1, 1, 1, 2])) as tf.Tensor4D;
    const kT = tf.transpose(v, [0, 1, 3, 2]) as tf.Tensor4D;
    c.append(l, kT, v); // the cache keeps them
  }
  return c;
}

/** The values a cache holds in layer 1 (dim 0), by slot. */
async function slots(c: KVCache): Promise<number[]> {
  const none = [tf.zeros([1, 1, 2, 0]) as tf.Tensor4D, tf.zeros([1, 1, 0, 2]) as tf.Tensor4D] as const;
  const v = (await c.append(1, ...none).v.array()) as number[][][][];
  none.forEach((t) => t.dispose());
  return v[0][0].map((d) => d[0]);
}

const BASE: PrefixKey = { adapter: null, version: 0 };
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
/** Bytes of one token in cacheOf's caches: 2 layers x (keys + values) x 2 dims x 4 bytes. */
const TOKEN = 2 * 2 * 2 * 4;

describe('prefix cache entries', () => {
  before(async () => initBackend(defaultBackendName()));

  it('gives the longest cached prefix under the same key, never the last token', async () => {
    const baseline = tf.memory().numTensors;
    const cache = new PrefixCache(1 << 20);
    cache.put(range(0, 6), cacheOf(range(0, 6)), BASE);
    cache.put([0, 1, 2, 9, 9], cacheOf([0, 1, 2, 9, 9]), BASE);
    const hit = cache.take([0, 1, 2, 9, 9, 9, 7], BASE)!;
    assert.equal(hit.length, 5);
    assert.deepEqual(await slots(hit), [0, 1, 2, 9, 9]);
    hit.dispose();
    const same = cache.take(range(0, 6), BASE)!;
    assert.equal(same.length, 5, 'a prompt cached whole still feeds its last token');
    assert.deepEqual(await slots(same), range(0, 5));
    same.dispose();
    assert.equal(cache.take([5, 0, 1], BASE), null, 'no common first token');
    assert.equal(cache.take(range(0, 6), { adapter: null, version: 1 }), null, 'another version');
    const adapter = {} as LoraAdapter;
    assert.equal(cache.take(range(0, 6), { adapter, version: 0 }), null, 'another adapter');
    assert.deepEqual(cache.stats, { lookups: 5, hits: 2, reusedTokens: 10, evictions: 0 });
    cache.dispose();
    assert.equal(cache.bytes, 0);
    assert.equal(tf.memory().numTensors, baseline, 'no tensor is left behind');
  });

  it('a taken prefix stays valid when its entry is evicted, and appending to it leaves the entry alone', async () => {
    const cache = new PrefixCache(1 << 20);
    cache.put(range(0, 4), cacheOf(range(0, 4)), BASE);
    const taken = cache.take([0, 1, 2, 3, 4], BASE)!; // all four positions: shared, not copied
    const v = tf.zeros([1, 1, 1, 2]) as tf.Tensor4D;
    const kT = tf.zeros([1, 1, 2, 1]) as tf.Tensor4D;
    for (let l = 0; l < 2; l++) taken.append(l, kT, v);
    v.dispose();
    kT.dispose();
    const again = cache.take([0, 1, 2, 3, 4], BASE)!;
    assert.deepEqual(await slots(again), [0, 1, 2, 3], 'appending to a taken prefix leaves the entry alone');
    const held = cache.take([0, 1, 2, 3, 4], BASE)!;
    cache.clear();
    assert.deepEqual(await slots(held), [0, 1, 2, 3], 'a taken prefix outlives its entry');
    assert.deepEqual(await slots(taken), [0, 1, 2, 3, 0]);
    [again, held, taken].forEach((c) => c.dispose());
  });

  it('evicts the least recently used entries to stay within its budget; an extended entry replaces its prefix', () => {
    const cache = new PrefixCache(10 * TOKEN);
    cache.put(range(0, 4), cacheOf(range(0, 4)), BASE);
    cache.put(range(100, 4), cacheOf(range(100, 4)), BASE);
    cache.take([0, 1, 2, 3, 9], BASE)?.dispose(); // [0..3] is now the most recently used
    cache.put(range(200, 4), cacheOf(range(200, 4)), BASE);
    assert.equal(cache.size, 2);
    assert.equal(cache.bytes, 8 * TOKEN);
    assert.equal(cache.stats.evictions, 1);
    assert.equal(cache.take([100, 101, 102], BASE), null, 'the least recently used entry went');
    cache.put(range(0, 6), cacheOf(range(0, 6)), BASE);
    assert.equal(cache.size, 2, 'the longer prompt replaced the one it extends');
    assert.equal(cache.bytes, 10 * TOKEN);
    cache.put(range(0, 3), cacheOf(range(0, 3)), BASE);
    assert.equal(cache.size, 2, 'a prompt an entry already holds adds nothing');
    cache.put(range(300, 11), cacheOf(range(300, 11)), BASE);
    assert.equal(cache.size, 2, 'an entry larger than the budget is not kept');
    assert.throws(() => cache.put([1, 2], cacheOf([1, 2, 3]), BASE), /3 positions for 2 tokens/);
    cache.dispose();
    const off = new PrefixCache(0);
    off.put([1, 2], cacheOf([1, 2]), BASE);
    assert.equal(off.size, 0, 'a budget of 0 keeps nothing');
  });

  it('its default budget holds four contexts, within an eighth of memory; CLAWLOOP_PREFIX_CACHE_MB overrides it', () => {
    const c = parseModelConfig({
      architectures: ['Qwen3ForCausalLM'],
      model_type: 'qwen3',
      hidden_size: 64,
      intermediate_size: 128,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      head_dim: 16,
      num_hidden_layers: 3,
      vocab_size: 300,
      max_position_embeddings: 8192,
    });
    assert.equal(kvBytesPerToken(c), 2 * 3 * 2 * 16 * 4);
    assert.equal(defaultPrefixCacheBytes(c, 64 * 2 ** 30), 4 * 8192 * 768);
    assert.equal(defaultPrefixCacheBytes(c, 80 << 20), 10 << 20);
    assert.equal(prefixCacheBytesFromEnv(c, { CLAWLOOP_PREFIX_CACHE_MB: '1.5' }), 1.5 * 1024 * 1024);
    assert.equal(prefixCacheBytesFromEnv(c, { CLAWLOOP_PREFIX_CACHE_MB: '0' }), 0);
    assert.throws(() => prefixCacheBytesFromEnv(c, { CLAWLOOP_PREFIX_CACHE_MB: 'lots' }), /expected a size in MiB/);
  });
});

prefixCacheSuite('qwen3-qknorm');
prefixCacheSuite('mistral-swa');
