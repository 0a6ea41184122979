/**
 * One workload of the 1.7B benchmark, alone in its process so its peak resident memory is its
 * own (`node dist/scripts/bench/largeWorkload.js --dir DIR --workload prefill|decode|lora|llamacpp`).
 * Prints one JSON line: the figure, load time and peak RSS.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Token } from 'node-llama-cpp';
import { greedyPicks, lastLogits } from '../../main/engine/generation/decodeStep.js';
import { KVCache } from '../../main/engine/model/kvCache.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { computeGradients, crossEntropyLoss } from '../../main/engine/training/train.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: node dist/scripts/bench/largeWorkload.js --workload prefill|decode|lora|llamacpp [options]

One workload of the 1.7B benchmark in its own process (bench:engine --large runs it); prints one JSON line.
  --dir DIR          the model folder (prefill, decode, lora)
  --gguf FILE        the GGUF file (llamacpp)
  --tokens N         prefill tokens (default: 512)
  --prompt N         decode prompt tokens (default: 32)
  --steps N          decode steps (default: 32)
  --seq N            LoRA training sequence length (default: 256)
  --iters N          repetitions (default: 2)
  --threads N        llama.cpp threads (default: 1)
  --checkpoint MODE  LoRA activation checkpointing: auto, true or false (default: auto)`;

/** Deterministic token ids spread over the real (non-special) vocabulary. */
export function largeIds(n: number, salt = 0): number[] {
  return Array.from({ length: n }, (_, t) => (salt * 7919 + t * 104729 + 17) % 151000);
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const peakMb = () => process.resourceUsage().maxRSS / 1024;

async function timedLoad(dir: string): Promise<{ model: Model; loadS: number }> {
  const t0 = performance.now();
  const model = await Model.load(dir);
  return { model, loadS: (performance.now() - t0) / 1000 };
}

async function prefill(dir: string, tokens: number, iters: number): Promise<Record<string, number>> {
  const { model, loadS } = await timedLoad(dir);
  const ids = largeIds(tokens);
  const run = () => tf.tidy(() => model.lm.forward(tf.tensor2d(ids, [1, tokens], 'int32'), { lastOnly: true }).dataSync());
  const t0 = performance.now();
  run(); // the first pass also reads the mapped weights in from disk or the page cache
  const firstS = (performance.now() - t0) / 1000;
  const times: number[] = [];
  for (let i = 0; i < iters; i++) {
    const t = performance.now();
    run();
    times.push((performance.now() - t) / 1000);
  }
  return { tok_s: tokens / median(times), load_s: loadS, first_s: firstS, peak_rss_mb: peakMb() };
}

async function decode(dir: string, prompt: number, steps: number): Promise<Record<string, number>> {
  const { model, loadS } = await timedLoad(dir);
  // Serving's own step (decodeStep.ts): the logits tensor leaves tf.tidy, then is read back. (A
  // tidy that returns the read-back array walks its 151,936 entries looking for tensors, which
  // once cost a quarter of each token here.)
  const step = (cache: KVCache, input: number[]) => {
    const logits = lastLogits(model.lm, { cache, adapter: null }, input, 1);
    const values = logits.dataSync() as Float32Array;
    logits.dispose();
    return greedyPicks(values, 1, values.length)[0];
  };
  const times: number[] = [];
  for (let r = 0; r < 2; r++) {
    const cache = new KVCache(model.config.numLayers);
    let next = step(cache, largeIds(prompt, r));
    const t0 = performance.now();
    for (let i = 0; i < steps; i++) next = step(cache, [next]);
    times.push((performance.now() - t0) / 1000);
    cache.dispose();
  }
  return { tok_s: steps / times[times.length - 1], load_s: loadS, peak_rss_mb: peakMb() };
}

async function lora(dir: string, seq: number, iters: number, checkpoint: string): Promise<Record<string, number>> {
  const { model, loadS } = await timedLoad(dir);
  const adapter = LoraAdapter.create(model.config, { r: 16, alpha: 32 }, 1);
  const opt = new AdamW(adapter.variables(), { lr: 1e-4 });
  const ids = [largeIds(seq)];
  const batch = { ids, mask: ids.map((s) => s.map((_, t) => (t > 0 ? 1 : 0))) };
  const mode = checkpoint === 'auto' ? 'auto' : checkpoint === 'true';
  const step = async () => opt.apply((await computeGradients(model.lm, batch, crossEntropyLoss, { adapter }, { checkpoint: mode })).grads);
  await step();
  const times: number[] = [];
  for (let i = 0; i < iters; i++) {
    const t = performance.now();
    await step();
    times.push((performance.now() - t) / 1000);
  }
  const stepS = median(times);
  return { step_s: stepS, tok_s: seq / stepS, load_s: loadS, peak_rss_mb: peakMb() };
}

async function llamaCpp(gguf: string, threads: number, tokens: number, prompt: number, steps: number): Promise<Record<string, number>> {
  const mod = await import('node-llama-cpp');
  const llama = await mod.getLlama({ gpu: false, logLevel: mod.LlamaLogLevel.error });
  const t0 = performance.now();
  const model = await llama.loadModel({ modelPath: gguf });
  const loadS = (performance.now() - t0) / 1000;
  const ctx = await model.createContext({ contextSize: Math.max(tokens, prompt + steps) + 16, batchSize: tokens, threads });
  const seq = ctx.getSequence();
  const times: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    await seq.evaluateWithoutGeneratingNewTokens(largeIds(tokens) as unknown as Token[]);
    times.push((performance.now() - t) / 1000);
    await seq.clearHistory();
  }
  let n = -1;
  let start = 0;
  for await (const _ of seq.evaluate(largeIds(prompt) as unknown as Token[], { temperature: 0 })) {
    if (++n === 0) start = performance.now();
    if (n === steps) break;
  }
  const decodeS = (performance.now() - start) / 1000;
  await ctx.dispose();
  await model.dispose();
  await llama.dispose();
  return { prefill_tok_s: tokens / median(times.slice(1)), decode_tok_s: steps / decodeS, load_s: loadS, peak_rss_mb: peakMb() };
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: {
      dir: { type: 'string' },
      gguf: { type: 'string' },
      workload: { type: 'string' },
      tokens: { type: 'string', default: '512' },
      prompt: { type: 'string', default: '32' },
      steps: { type: 'string', default: '32' },
      seq: { type: 'string', default: '256' },
      iters: { type: 'string', default: '2' },
      threads: { type: 'string', default: '1' },
      checkpoint: { type: 'string', default: 'auto' },
    },
  });
  const n = (k: keyof typeof values) => Number(values[k]);
  let out: Record<string, number>;
  if (values.workload === 'prefill') out = await prefill(values.dir!, n('tokens'), n('iters'));
  else if (values.workload === 'decode') out = await decode(values.dir!, n('prompt'), n('steps'));
  else if (values.workload === 'lora') out = await lora(values.dir!, n('seq'), n('iters'), values.checkpoint!);
  else if (values.workload === 'llamacpp') out = await llamaCpp(values.gguf!, n('threads'), n('tokens'), n('prompt'), n('steps'));
  else throw new Error(`--workload is '${values.workload}'; expected prefill, decode, lora or llamacpp`);
  console.log(JSON.stringify({ workload: values.workload, backend: values.workload === 'llamacpp' ? 'llama.cpp' : tf.getBackend(), ...out }));
}

if (process.argv[1]?.endsWith('largeWorkload.js')) await main();
