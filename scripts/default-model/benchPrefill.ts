/**
 * `node dist/scripts/default-model/benchPrefill.js [--tokens 5000] [--runs 2] [--model DIR]`
 *
 * The prefill of one long prompt on the bundled model (an OpenClaw system prompt is about 5,000
 * of its tokens), as the engine runs it (generation/tokenSteps.ts): chunks of PREFILL_CHUNK tokens
 * into a KV cache, the last chunk's logits for the last position. Prints CPU and wall seconds per
 * prefill and the process's peak memory, with the CPU and thread count named. Run it with
 * CLAWLOOP_THREADS=1 under `nice` for figures that hold on a shared machine (CPU seconds).
 */
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { loadNativeAddon } from '../../main/engine/backends/nativeAddon.js';
import { PREFILL_CHUNK } from '../../main/engine/generation/tokenSteps.js';
import { KVCache } from '../../main/engine/model/kvCache.js';
import type { CausalLM } from '../../main/engine/model/causalLM.js';
import { defaultModelDir } from '../../main/resources.js';
import { scriptArgs } from '../scriptArgs.js';
import { longContextModel } from './longContextModel.js';

const USAGE = `Usage: node dist/scripts/default-model/benchPrefill.js [options]
  --tokens N     prompt length in tokens (default: 5000)
  --runs N       timed prefills, after one untimed warm-up (default: 2)
  --model DIR    model folder (default: the bundled model)`;

/** One prefill of `ids` in chunks into a fresh cache; returns the last position's logits [V]. */
function prefill(lm: CausalLM, ids: number[]): Float32Array {
  const cache = new KVCache(lm.config.numLayers);
  for (let i = 0; i + PREFILL_CHUNK < ids.length; i += PREFILL_CHUNK) {
    tf.tidy(() => void lm.hidden(tf.tensor2d(ids.slice(i, i + PREFILL_CHUNK), [1, PREFILL_CHUNK], 'int32'), { cache }));
  }
  const last = ids.slice(Math.floor((ids.length - 1) / PREFILL_CHUNK) * PREFILL_CHUNK);
  const logits = tf.tidy(
    () => lm.forward(tf.tensor2d(last, [1, last.length], 'int32'), { cache, lastOnly: true }).dataSync() as Float32Array,
  );
  cache.dispose();
  return logits;
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: { tokens: { type: 'string', default: '5000' }, runs: { type: 'string', default: '2' }, model: { type: 'string' } },
  });
  const N = Number(values.tokens);
  const runs = Number(values.runs);
  await initBackend(undefined, { log: () => {} });
  const lm = longContextModel(path.resolve(values.model ?? defaultModelDir()), N);
  const info = loadNativeAddon()?.info();
  console.log(
    `CPU: ${os.cpus()[0]?.model} (${os.availableParallelism()} logical), backend ${tf.getBackend()}, ${info?.threads ?? '?'} thread(s), nice ${os.getPriority()}`,
  );
  const ids = Array.from({ length: N }, (_, i) => (i * 7919) % (lm.config.vocabSize - 16));
  prefill(lm, ids); // warm-up
  console.log('tokens | s/prefill (wall) | CPU s/prefill | tokens per CPU s | peak RSS (GB)');
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const logits = prefill(lm, ids);
    const c = process.cpuUsage(c0);
    const cpu = (c.user + c.system) / 1e6;
    if (!logits.every(Number.isFinite)) throw new Error('the prefill gave non-finite logits');
    const rss = (process.resourceUsage().maxRSS / 2 ** 20).toFixed(2);
    console.log(`${N} | ${((performance.now() - t0) / 1000).toFixed(2)} | ${cpu.toFixed(2)} | ${(N / cpu).toFixed(0)} | ${rss}`);
  }
}

await main();
