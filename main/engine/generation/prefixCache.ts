import type { KVCache } from '../model/kvCache.js';
import type { LoraAdapter } from '../model/lora.js';

/**
 * The weights that computed a cache's keys and values: the LoRA adapter (null: the base model) and
 * a version the caller bumps whenever that adapter's weights change (a training step in place).
 * An entry is reused only under the same adapter object and version: an adapter changes every
 * layer's keys and values after the first, so a hot-swapped adapter never sees a stale prefix.
 */
export interface PrefixKey {
  adapter: LoraAdapter | null;
  version: number;
}

interface Entry {
  ids: Int32Array;
  cache: KVCache;
  bytes: number;
  key: PrefixKey;
  lastUsed: number;
}

/** What a prefix cache has done so far. */
export interface PrefixCacheStats {
  /** Lookups, and those that reused at least one position. */
  lookups: number;
  hits: number;
  /** Prompt tokens whose keys and values were reused instead of computed. */
  reusedTokens: number;
  /** Entries dropped to stay within the budget. */
  evictions: number;
}

/**
 * Keys and values of recent prompts, kept across requests so that a prompt starting with tokens
 * seen before (the same agent system prompt and tools; a session's previous turn, resent with one
 * more message) computes only its new tokens. A causal model's keys and values at position p
 * depend only on tokens 0..p, so any common prefix of two prompts has the same cache entries; a
 * lookup takes the longest one among the entries of the same adapter version.
 *
 * Bounded by a byte budget: the least recently used entries are evicted to fit a new one; an entry
 * larger than the whole budget is not kept. An entry that another one extends is replaced by it.
 * Assumes the base model's weights do not change while entries exist ({@link clear} otherwise).
 */
export class PrefixCache {
  private readonly entries: Entry[] = [];
  private clock = 0;
  private used = 0;
  readonly stats: PrefixCacheStats = { lookups: 0, hits: 0, reusedTokens: 0, evictions: 0 };

  /** @param maxBytes the most bytes of keys and values kept (see prefixCacheBudget.ts); 0 keeps nothing. */
  constructor(readonly maxBytes: number) {
    if (!(maxBytes >= 0) || !Number.isFinite(maxBytes))
      throw new RangeError(`PrefixCache: maxBytes is ${maxBytes}; expected a number >= 0`);
  }

  /** Bytes the entries take. */
  get bytes(): number {
    return this.used;
  }

  /** Number of cached prompts. */
  get size(): number {
    return this.entries.length;
  }

  /**
   * The keys and values of the longest cached prefix of `ids` computed under `key`, as a new
   * one-row cache the caller owns, or null when none is cached. Reuses at most all but the last
   * token: the caller feeds at least one, for the logits of the next.
   */
  take(ids: readonly number[], key: PrefixKey): KVCache | null {
    this.stats.lookups++;
    let best: Entry | null = null;
    let bestLen = 0;
    for (const e of this.entries) {
      if (!sameKey(e.key, key)) continue;
      const n = commonPrefix(e.ids, ids);
      if (n > bestLen) [best, bestLen] = [e, n];
    }
    const length = Math.min(bestLen, ids.length - 1);
    if (!best || length <= 0) return null;
    best.lastUsed = ++this.clock;
    this.stats.hits++;
    this.stats.reusedTokens += length;
    return best.cache.share(length);
  }

  /**
   * Remembers `cache` (one row, `ids.length` positions) as the keys and values of `ids` under
   * `key`, and takes it over (pass `cache.share()` to keep using yours: it costs no copy).
   */
  put(ids: readonly number[], cache: KVCache, key: PrefixKey): void {
    if (cache.batch !== 1 || cache.length !== ids.length) {
      const found = `${cache.batch} row(s) x ${cache.length} positions`;
      cache.dispose();
      throw new RangeError(`PrefixCache.put: a cache of ${found} for ${ids.length} tokens; expected 1 row of as many positions as tokens`);
    }
    const bytes = cache.bytes;
    if (ids.length === 0 || bytes > this.maxBytes || this.covered(ids, key)) {
      cache.dispose();
      return;
    }
    while (this.used + bytes > this.maxBytes) this.evictOldest();
    this.entries.push({ ids: Int32Array.from(ids), cache, bytes, key: { ...key }, lastUsed: ++this.clock });
    this.used += bytes;
  }

  /** Drops the entries of an adapter (all of its versions): call when it is unloaded or replaced. */
  forget(adapter: LoraAdapter | null): void {
    this.removeWhere((e) => e.key.adapter === adapter);
  }

  /** Drops every entry. */
  clear(): void {
    this.removeWhere(() => true);
  }

  dispose(): void {
    this.clear();
  }

  /**
   * True when an entry under `key` already holds all of `ids` (it is then marked used). Entries
   * that `ids` extends are dropped: the new entry holds everything they do.
   */
  private covered(ids: readonly number[], key: PrefixKey): boolean {
    for (const e of this.entries) {
      if (!sameKey(e.key, key)) continue;
      const n = commonPrefix(e.ids, ids);
      if (n === ids.length) {
        e.lastUsed = ++this.clock;
        return true;
      }
    }
    this.removeWhere((e) => sameKey(e.key, key) && commonPrefix(e.ids, ids) === e.ids.length);
    return false;
  }

  private evictOldest(): void {
    let oldest = this.entries[0];
    for (const e of this.entries) if (e.lastUsed < oldest.lastUsed) oldest = e;
    this.removeWhere((e) => e === oldest);
    this.stats.evictions++;
  }

  private removeWhere(drop: (e: Entry) => boolean): void {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i];
      if (!drop(e)) continue;
      // Generations that took a share of it keep their own references: their tensors stay valid.
      e.cache.dispose();
      this.used -= e.bytes;
      this.entries.splice(i, 1);
    }
  }
}

function sameKey(a: PrefixKey, b: PrefixKey): boolean {
  return a.adapter === b.adapter && a.version === b.version;
}

/** The number of leading tokens two sequences share. */
function commonPrefix(a: Int32Array, b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
