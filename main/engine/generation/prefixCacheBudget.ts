import os from 'node:os';
import type { ModelConfig } from '../model/config.js';

/** Bytes one token's keys and values take in a model's KV cache: 2 · layers · KV heads · head size, float32. */
export function kvBytesPerToken(c: ModelConfig): number {
  return 2 * c.numLayers * c.numKvHeads * c.headDim * 4;
}

/**
 * The prefix cache's default budget: room for four full contexts (say, four agent sessions each
 * near the model's window), but never more than an eighth of the machine's memory, so a large
 * model with a long window does not reserve gigabytes for it. On a GPU the KV cache lives in GPU
 * memory; the host's memory still bounds the default.
 */
export function defaultPrefixCacheBytes(c: ModelConfig, totalMemory = os.totalmem()): number {
  return Math.floor(Math.min(4 * c.maxPositions * kvBytesPerToken(c), totalMemory / 8));
}

/**
 * The prefix cache budget in bytes: `CLAWLOOP_PREFIX_CACHE_MB` (MiB; 0 turns the cache off) when
 * set, else {@link defaultPrefixCacheBytes}. Throws on a value that is not a number ≥ 0.
 */
export function prefixCacheBytesFromEnv(c: ModelConfig, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.CLAWLOOP_PREFIX_CACHE_MB?.trim();
  if (!raw) return defaultPrefixCacheBytes(c);
  const mb = Number(raw);
  if (!(mb >= 0) || !Number.isFinite(mb)) {
    throw new RangeError(`CLAWLOOP_PREFIX_CACHE_MB is '${raw}'; expected a size in MiB (a number >= 0; 0 turns the prefix cache off)`);
  }
  return Math.floor(mb * 1024 * 1024);
}
