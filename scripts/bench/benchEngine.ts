/**
 * `npm run bench:engine [-- --json FILE] [--iters N] [--backend NAME]`
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
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, parseBackendName } from '../../main/engine/backend.js';
import { CausalLM } from '../../main/engine/causalLM.js';
import { parameterCount, parseModelConfig } from '../../main/engine/config.js';
import { KVCache } from '../../main/engine/kvCache.js';
import { LoraAdapter } from '../../main/engine/lora.js';
import { AdamW } from '../../main/engine/optimizer.js';
import { computeGradients, crossEntropyLoss, type TrainBatch } from '../../main/engine/train.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The benchmark model: hidden 256, 4 layers, GQA 4/2 heads of 64, SwiGLU 768, vocab 2048, tied head. */
export const BENCH_CONFIG = {
  architectures: ['Qwen3ForCausalLM'],
  model_type: 'qwen3',
  hidden_size: 256,
  intermediate_size: 768,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  head_dim: 64,
  num_hidden_layers: 4,
  vocab_size: 2048,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  tie_word_embeddings: true,
  max_position_embeddings: 1024,
};
const BATCH = 8;
const SEQ = 128;
const DECODE_TOKENS = 64;

type Figures = { prefill_tok_s: number; decode_tok_s: number; train_lora_tok_s: number; train_full_tok_s: number };
const KEYS: Array<keyof Figures> = ['prefill_tok_s', 'decode_tok_s', 'train_lora_tok_s', 'train_full_tok_s'];

/** Median seconds of `iters` runs after one warm-up. */
async function timed(fn: () => unknown, iters: number): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < iters; i++) {
    const t0 = performance.now();
    await fn();
    times.push((performance.now() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function benchClawLoop(iters: number): Promise<Figures> {
  const config = parseModelConfig(BENCH_CONFIG);
  const lm = CausalLM.random(config, 0);
  const ids = Array.from({ length: BATCH }, (_, b) => Array.from({ length: SEQ }, (_, t) => (b * 7919 + t * 104729) % config.vocabSize));

  const prefill = await timed(
    () => tf.tidy(() => lm.forward(tf.tensor2d(ids.flat(), [BATCH, SEQ], 'int32'), { lastOnly: true }).dataSync()),
    iters,
  );

  // The same per-token work as generate(): one cached forward step and a greedy pick.
  const decode = await timed(
    () => {
      const cache = new KVCache(config.numLayers);
      let input = ids[0];
      for (let i = 0; i < DECODE_TOKENS; i++) {
        const logits = tf.tidy(() => lm.forward(tf.tensor2d(input, [1, input.length], 'int32'), { cache, lastOnly: true }).dataSync());
        let best = 0;
        for (let v = 1; v < logits.length; v++) if (logits[v] > logits[best]) best = v;
        input = [best];
      }
      cache.dispose();
    },
    Math.max(2, Math.floor(iters / 2)),
  );

  const batch: TrainBatch = { ids, mask: ids.map((s) => s.map((_, t) => (t > 0 ? 1 : 0))) };
  const adapter = LoraAdapter.create(config, { r: 8, alpha: 16 }, 1);
  const loraOpt = new AdamW(adapter.variables(), { lr: 1e-4 });
  const lora = await timed(() => loraOpt.apply(computeGradients(lm, batch, crossEntropyLoss, { adapter }).grads), iters);
  loraOpt.dispose();
  adapter.dispose();

  lm.setTrainable(true);
  const fullOpt = new AdamW(lm.parameters(), { lr: 1e-5 });
  const full = await timed(() => {
    fullOpt.apply(computeGradients(lm, batch, crossEntropyLoss, 'full').grads);
    lm.weightsChanged();
  }, iters);
  fullOpt.dispose();
  lm.dispose();
  const tokens = BATCH * SEQ;
  return {
    prefill_tok_s: tokens / prefill,
    decode_tok_s: DECODE_TOKENS / decode,
    train_lora_tok_s: tokens / lora,
    train_full_tok_s: tokens / full,
  };
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

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { json: { type: 'string' }, iters: { type: 'string', default: '5' }, backend: { type: 'string' } },
  });
  const iters = Math.max(1, Number(values.iters));
  const backend = await initBackend(values.backend ? parseBackendName(values.backend) : undefined);
  const threads = os.availableParallelism();
  const config = parseModelConfig(BENCH_CONFIG);
  console.log(
    `ClawLoop engine benchmark: Qwen3-shaped, ${(parameterCount(config) / 1e6).toFixed(2)} M parameters ` +
      `(hidden 256, 4 layers, vocab 2048), batch ${BATCH} x seq ${SEQ}; decode ${DECODE_TOKENS} tokens after a ${SEQ}-token prompt`,
  );
  const ours = await benchClawLoop(iters);
  const peer = await benchPyTorch(iters, threads);
  console.log(`ClawLoop: tfjs '${backend}'${'figures' in peer ? ` | ${peer.version}` : ''}`);
  const ratios: Partial<Figures> = {};
  console.log(`${''.padEnd(22)}${'ClawLoop'.padStart(12)}${'PyTorch'.padStart(12)}${'ratio'.padStart(9)}`);
  for (const k of KEYS) {
    const theirs = 'figures' in peer ? peer.figures[k] : undefined;
    if (theirs) ratios[k] = ours[k] / theirs;
    const label = k.replace(/_tok_s$/, '').replace('_', ' ') + ' tok/s';
    console.log(
      `${label.padEnd(22)}${ours[k].toFixed(1).padStart(12)}${(theirs?.toFixed(1) ?? '-').padStart(12)}${(ratios[k] ? ratios[k]!.toFixed(2) + 'x' : '-').padStart(9)}`,
    );
  }
  if ('error' in peer) console.log(peer.error);
  if (values.json) {
    const report = { clawloop: ours, pytorch: 'figures' in peer ? peer.figures : null, ratios, backend, threads, config: BENCH_CONFIG };
    fs.writeFileSync(values.json, JSON.stringify(report, null, 2) + '\n');
    console.log(`wrote ${values.json}`);
  }
}

await main();
