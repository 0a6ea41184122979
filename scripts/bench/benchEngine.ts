/**
 * `npm run bench:engine [-- --json FILE] [--iters N] [--backend NAME] [--large] [--large-only] [--large-dir DIR]
 *   [--keep-large] [--large-seq N] [--large-budget S] [--large-workloads LIST] [--large-peers LIST] [--ours-only]`
 *
 * `--large` adds the 1.7B configuration (benchLarge.ts: ~3.4 GB of random BF16 weights written to
 * --large-dir, default the OS temp folder, removed afterwards unless --keep-large; tens of minutes).
 *
 * Prefill, decode and training throughput of ClawLoop's engine on a fixed ~3.7 M-parameter
 * Qwen3-shaped model, next to the same workload in PyTorch (scripts/reference/bench_engine.py,
 * when Debian's python3-torch is installed), with the ratios. Weights are random: speed only.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, parseBackendName } from '../../main/engine/backends/backend.js';
import { CausalLM } from '../../main/engine/model/causalLM.js';
import { parameterCount, parseModelConfig } from '../../main/engine/model/config.js';
import { KVCache } from '../../main/engine/model/kvCache.js';
import { readFloats } from '../../main/engine/model/tensorRead.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import type { Token } from 'node-llama-cpp';
import { ggufFromModel, type GgufVocab } from '../../main/engine/formats/ggufExport.js';
import { writeGguf } from '../../main/engine/formats/ggufFile.js';
import { computeGradients, crossEntropyLoss, type TrainBatch } from '../../main/engine/training/train.js';
import { BATCH, BENCH_CONFIG, benchIds, DECODE_TOKENS, SEQ } from './benchConfig.js';
import { cpuLine, cpuSummary, cpuTag } from './cpuReport.js';
import { benchLarge, LARGE_WORKLOADS, parseList } from './benchLarge.js';
import { medianSeconds as timed } from './timing.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run bench:engine -- [--json FILE] [--iters N] [--backend NAME] [--large] [--large-only] [large options]

Prefill, decode and training throughput of the engine next to PyTorch on the same workload.
  --large            also the 1.7B configuration (tens of minutes; --large-only: that alone)
  large options:     --large-dir DIR  --keep-large  --large-seq N  --large-budget S  --ours-only
                     --large-workloads LIST  some of prefill,decode,lora,lora1024 (default: all;
                     e.g. decode: decode tok/s and streamed GB/s against the peers)
                     --large-peers LIST  some of pytorch,llamacpp (default: both)`;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

type Figures = { prefill_tok_s: number; decode_tok_s: number; train_lora_tok_s: number; train_full_tok_s: number };
const KEYS: Array<keyof Figures> = ['prefill_tok_s', 'decode_tok_s', 'train_lora_tok_s', 'train_full_tok_s'];

async function benchClawLoop(lm: CausalLM, iters: number): Promise<Figures> {
  const config = lm.config;
  const ids = benchIds();

  const prefill = await timed(
    () => tf.tidy(() => lm.forward(tf.tensor2d(ids.flat(), [BATCH, SEQ], 'int32'), { lastOnly: true })).data(),
    iters,
  );

  // The same per-token work as generate(): one cached forward step and a greedy pick. The
  // prompt's prefill is not timed (prefill has its own figure).
  const step = async (cache: KVCache, input: number[]): Promise<number> => {
    const logits = await readFloats(tf.tidy(() => lm.forward(tf.tensor2d(input, [1, input.length], 'int32'), { cache, lastOnly: true })));
    let best = 0;
    for (let v = 1; v < logits.length; v++) if (logits[v] > logits[best]) best = v;
    return best;
  };
  const decodeTimes: number[] = [];
  for (let r = 0; r < Math.max(2, Math.floor(iters / 2)) + 1; r++) {
    const cache = new KVCache(config.numLayers);
    let next = await step(cache, ids[0]);
    const t0 = performance.now();
    for (let i = 0; i < DECODE_TOKENS; i++) next = await step(cache, [next]);
    if (r > 0) decodeTimes.push((performance.now() - t0) / 1000); // the first run warms up
    cache.dispose();
  }
  const decode = decodeTimes.sort((a, b) => a - b)[Math.floor(decodeTimes.length / 2)];

  const batch: TrainBatch = { ids, mask: ids.map((s) => s.map((_, t) => (t > 0 ? 1 : 0))) };
  const adapter = LoraAdapter.create(config, { r: 8, alpha: 16 }, 1);
  const loraOpt = new AdamW(adapter.variables(), { lr: 1e-4 });
  const lora = await timed(async () => loraOpt.apply((await computeGradients(lm, batch, crossEntropyLoss, { adapter })).grads), iters);
  loraOpt.dispose();
  adapter.dispose();

  lm.setTrainable(true);
  const fullOpt = new AdamW(lm.parameters(), { lr: 1e-5 });
  const full = await timed(async () => {
    await fullOpt.apply((await computeGradients(lm, batch, crossEntropyLoss, 'full')).grads);
    lm.weightsChanged();
  }, iters);
  fullOpt.dispose();
  lm.setTrainable(false);
  const tokens = BATCH * SEQ;
  return {
    prefill_tok_s: tokens / prefill,
    decode_tok_s: DECODE_TOKENS / decode,
    train_lora_tok_s: tokens / lora,
    train_full_tok_s: tokens / full,
  };
}

/** GPT-2 byte-level token strings for ids 0..255, then unique filler tokens: enough for llama.cpp to load. */
function syntheticVocab(size: number): GgufVocab {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const byteChar: string[] = [];
  let extra = 0;
  for (let b = 0; b < 256; b++) byteChar.push(String.fromCharCode(printable(b) ? b : 256 + extra++));
  const tokens = Array.from({ length: size }, (_, i) =>
    i < 256 ? byteChar[i] : `${byteChar[97 + (i % 26)]}${byteChar[97 + (Math.floor(i / 26) % 26)]}${i}`,
  );
  return { tokens, types: tokens.map(() => 1), merges: [], eosTokenId: size - 1, pre: 'default' };
}

/** llama.cpp (node-llama-cpp, CPU) on the same weights exported to GGUF F32 by ClawLoop. */
async function benchLlamaCpp(
  lm: CausalLM,
  threads: number,
): Promise<{ prefill_tok_s: number; decode_tok_s: number; version: string } | { error: string }> {
  let mod: typeof import('node-llama-cpp');
  try {
    mod = await import('node-llama-cpp');
  } catch (err) {
    return { error: `llama.cpp not measured: node-llama-cpp is not installed (${(err as Error).message.split('\n')[0]})` };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-gguf-'));
  try {
    const file = path.join(dir, 'bench.gguf');
    const { metadata, tensors } = await ggufFromModel(lm, syntheticVocab(lm.config.vocabSize), 'clawloop-bench');
    writeGguf(file, metadata, tensors);
    const llama = await mod.getLlama({ gpu: false, logLevel: mod.LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: file });
    const ctx = await model.createContext({
      contextSize: 512,
      batchSize: 512,
      threads,
      experimentalKvCacheKeyType: 'F32',
      experimentalKvCacheValueType: 'F32',
    });
    const seq = ctx.getSequence();
    const ids = benchIds();
    const prefillTimes: number[] = [];
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      for (const prompt of ids) {
        await seq.evaluateWithoutGeneratingNewTokens(prompt as unknown as Token[]);
        await seq.clearHistory();
      }
      prefillTimes.push((performance.now() - t0) / 1000);
    }
    const decodeTimes: number[] = [];
    for (let r = 0; r < 3; r++) {
      // The first token comes out of the prompt's prefill; time the DECODE_TOKENS after it.
      let n = -1;
      let t0 = 0;
      for await (const _ of seq.evaluate(ids[0] as unknown as Token[], { temperature: 0 })) {
        if (++n === 0) t0 = performance.now();
        if (n === DECODE_TOKENS) break;
      }
      decodeTimes.push((performance.now() - t0) / 1000);
      await seq.clearHistory();
    }
    await ctx.dispose();
    await model.dispose();
    await llama.dispose();
    const median = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
    return {
      prefill_tok_s: (BATCH * SEQ) / median(prefillTimes.slice(1)),
      decode_tok_s: DECODE_TOKENS / median(decodeTimes),
      version: `llama.cpp ${llama.llamaCppRelease.release} via node-llama-cpp, ${threads} threads`,
    };
  } catch (err) {
    return { error: `llama.cpp not measured: ${(err as Error).message.split('\n')[0]}` };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function benchPyTorch(iters: number, threads: number): Promise<{ figures: Figures; version: string } | { error: string }> {
  const python = process.env.CLAWLOOP_PYTHON ?? '/usr/bin/python3';
  const cfgFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-bench-')), 'config.json');
  fs.writeFileSync(cfgFile, JSON.stringify(BENCH_CONFIG));
  try {
    const { stdout } = await promisify(execFile)(
      python,
      [
        path.join(ROOT, 'scripts', 'reference', 'bench_engine.py'),
        cfgFile,
        '--threads',
        String(threads),
        '--iters',
        String(iters),
        '--batch',
        String(BATCH),
        '--seq',
        String(SEQ),
        '--decode-tokens',
        String(DECODE_TOKENS),
      ],
      { maxBuffer: 1 << 20 },
    );
    const j = JSON.parse(stdout.trim().split('\n').pop()!);
    return { figures: Object.fromEntries(KEYS.map((k) => [k, j[k]])) as Figures, version: `PyTorch ${j.torch}, ${j.threads} threads` };
  } catch (err) {
    return {
      error: `PyTorch not measured (${(err as Error).message.split('\n')[0]}); install Debian's python3-torch and libopenblas0-pthread`,
    };
  } finally {
    fs.rmSync(path.dirname(cfgFile), { recursive: true, force: true });
  }
}

const OPTIONS = {
  json: { type: 'string' },
  iters: { type: 'string', default: '5' },
  backend: { type: 'string' },
  large: { type: 'boolean', default: false },
  'large-only': { type: 'boolean', default: false },
  'large-dir': { type: 'string' },
  'keep-large': { type: 'boolean', default: false },
  'large-seq': { type: 'string', default: '256' },
  'large-budget': { type: 'string', default: '300' },
  'ours-only': { type: 'boolean', default: false },
  'large-workloads': { type: 'string', default: LARGE_WORKLOADS.join(',') },
  'large-peers': { type: 'string', default: 'pytorch,llamacpp' },
} as const;

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, { options: OPTIONS });
  if (values['large-only']) {
    const cpu = cpuSummary();
    console.log(cpuLine(cpu));
    const large = await benchLarge(largeOptions(values, cpu.threads), cpu);
    if (values.json) fs.writeFileSync(values.json, JSON.stringify({ cpu, large }, null, 2) + '\n');
    return;
  }
  const iters = Math.max(1, Number(values.iters));
  const backend = await initBackend(values.backend ? parseBackendName(values.backend) : undefined);
  const cpu = cpuSummary();
  const threads = cpu.threads; // the peers run on as many threads as ClawLoop
  const config = parseModelConfig(BENCH_CONFIG);
  console.log(cpuLine(cpu));
  console.log(
    `ClawLoop engine benchmark: Qwen3-shaped, ${(parameterCount(config) / 1e6).toFixed(2)} M parameters ` +
      `(hidden 256, 4 layers, vocab 2048), batch ${BATCH} x seq ${SEQ}; decode ${DECODE_TOKENS} tokens after a ${SEQ}-token prompt`,
  );
  const lm = CausalLM.random(config, 0);
  const cpp = await benchLlamaCpp(lm, threads); // first, while the weights are the initial ones
  const ours = await benchClawLoop(lm, iters);
  lm.dispose();
  const peer = await benchPyTorch(iters, threads);
  const versions = ['figures' in peer ? peer.version : null, 'error' in cpp ? null : cpp.version].filter(Boolean);
  console.log(`ClawLoop: tfjs '${backend}'${versions.length ? ` | ${versions.join(' | ')}` : ''}`);
  const ratios: Partial<Figures> = {};
  const cppRatios: { prefill_tok_s?: number; decode_tok_s?: number } = {};
  console.log(
    `${''.padEnd(22)}${'ClawLoop'.padStart(12)}${'PyTorch'.padStart(12)}${'ratio'.padStart(9)}${'llama.cpp'.padStart(12)}${'ratio'.padStart(9)}  CPU`,
  );
  for (const k of KEYS) {
    const theirs = 'figures' in peer ? peer.figures[k] : undefined;
    if (theirs) ratios[k] = ours[k] / theirs;
    const c = !('error' in cpp) && (k === 'prefill_tok_s' || k === 'decode_tok_s') ? cpp[k] : undefined;
    if (c) cppRatios[k as 'prefill_tok_s' | 'decode_tok_s'] = ours[k] / c;
    const fmt = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(1));
    const ratio = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(2) + 'x');
    const label = k.replace(/_tok_s$/, '').replace('_', ' ') + ' tok/s';
    console.log(
      `${label.padEnd(22)}${fmt(ours[k]).padStart(12)}${fmt(theirs).padStart(12)}${ratio(ratios[k]).padStart(9)}${fmt(c).padStart(12)}${ratio(c ? ours[k] / c : undefined).padStart(9)}  ${cpuTag(cpu)}`,
    );
  }
  if ('error' in peer) console.log(peer.error);
  if ('error' in cpp) console.log(cpp.error);
  const large = values.large ? await benchLarge(largeOptions(values, threads), cpu) : null;
  if (values.json) {
    const report = {
      large,
      clawloop: ours,
      pytorch: 'figures' in peer ? peer.figures : null,
      ratios,
      llamacpp: 'error' in cpp ? null : { prefill_tok_s: cpp.prefill_tok_s, decode_tok_s: cpp.decode_tok_s },
      llamacpp_ratios: cppRatios,
      backend,
      threads,
      cpu,
      config: BENCH_CONFIG,
    };
    fs.writeFileSync(values.json, JSON.stringify(report, null, 2) + '\n');
    console.log(`wrote ${values.json}`);
  }
}

await main();

function largeOptions(values: Record<string, string | boolean | undefined>, threads: number) {
  return {
    dir: (values['large-dir'] as string | undefined) ?? path.join(os.tmpdir(), 'clawloop-bench-qwen3-1.7b'),
    keep: values['keep-large'] === true,
    threads,
    seq: Number(values['large-seq']),
    budget: Number(values['large-budget']),
    oursOnly: values['ours-only'] === true,
    workloads: parseList('--large-workloads', values['large-workloads'] as string, LARGE_WORKLOADS),
    peers: parseList('--large-peers', values['large-peers'] as string, ['pytorch', 'llamacpp'] as const),
  };
}
