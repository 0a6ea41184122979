import * as tf from '@tensorflow/tfjs-core';
import { gpuMemory, releaseGpuPool, resetGpuPeak } from '../../main/engine/backends/webgpu/gpuMemory.js';
import { CausalLM, type WeightStorage } from '../../main/engine/model/causalLM.js';
import type { ModelConfig } from '../../main/engine/model/config.js';
import { KVCache } from '../../main/engine/model/kvCache.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { readFloats } from '../../main/engine/model/tensorRead.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { computeGradients, crossEntropyLoss } from '../../main/engine/training/train.js';
import { decodeOutsideTfjs } from './gpuDecodeWorkload.js';
import { benchTokens, GPU_DECODER_KEY, type GpuFigures, type GpuWorkload } from './gpuBenchShapes.js';
import { medianSeconds as timed } from './timing.js';

function argmaxRows(logits: Float32Array, rows: number): number[] {
  const V = logits.length / rows;
  return Array.from({ length: rows }, (_, b) => {
    let best = 0;
    for (let v = 1; v < V; v++) if (logits[b * V + v] > logits[b * V + best]) best = v;
    return best;
  });
}

async function prefill(lm: CausalLM, B: number, T: number, iters: number): Promise<number> {
  const ids = benchTokens(B, T, lm.config.vocabSize).flat();
  const s = await timed(() => readFloats(tf.tidy(() => lm.forward(tf.tensor2d(ids, [B, T], 'int32'), { lastOnly: true }))), iters);
  return (B * T) / s;
}

/** Greedy decoding of `tokens` tokens for B rows after a prompt, as generation does it (logits read every step). */
async function decode(lm: CausalLM, B: number, w: GpuWorkload['decode'], iters: number): Promise<number> {
  const prompt = benchTokens(B, w.prompt, lm.config.vocabSize).flat();
  const step = (cache: KVCache, ids: number[], T: number) =>
    readFloats(tf.tidy(() => lm.forward(tf.tensor2d(ids, [B, T], 'int32'), { cache, lastOnly: true })));
  const times: number[] = [];
  for (let r = 0; r <= iters; r++) {
    const cache = new KVCache(lm.config.numLayers);
    let next = argmaxRows(await step(cache, prompt, w.prompt), B);
    const t0 = performance.now();
    for (let i = 0; i < w.tokens; i++) next = argmaxRows(await step(cache, next, 1), B);
    if (r > 0) times.push((performance.now() - t0) / 1000); // the first run warms up
    cache.dispose();
  }
  return (B * w.tokens) / times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

async function trainLora(lm: CausalLM, w: GpuWorkload['train'], iters: number): Promise<number> {
  const ids = benchTokens(w.batch, w.seq, lm.config.vocabSize);
  const batch = { ids, mask: ids.map((s) => s.map((_, t) => (t > 0 ? 1 : 0))) };
  const adapter = LoraAdapter.create(lm.config, { r: w.r, alpha: w.alpha }, 1);
  const opt = new AdamW(adapter.variables(), { lr: 1e-4 });
  try {
    const s = await timed(async () => {
      await opt.apply((await computeGradients(lm, batch, crossEntropyLoss, { adapter })).grads);
      await [...adapter.variables().values()][0].data(); // the update itself has run
    }, iters);
    return (w.batch * w.seq) / s;
  } finally {
    opt.dispose();
    adapter.dispose();
  }
}

/**
 * ClawLoop's figures on the active backend for a random model of `config`: every phase runs even
 * when another fails (its error is returned instead of a figure).
 */
export async function measureClawLoop(
  config: ModelConfig,
  w: GpuWorkload,
  weights: WeightStorage,
  log: (line: string) => void,
): Promise<{ figures: GpuFigures; errors: string[] }> {
  releaseGpuPool();
  resetGpuPeak();
  const t0 = performance.now();
  const lm = CausalLM.random(config, 0, 0.02, { weights });
  log(`  random weights ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const figures: GpuFigures = { prefill_tok_s: {}, decode_tok_s: {}, train_lora_tok_s: NaN, peak_memory_bytes: NaN };
  const errors: string[] = [];
  const phase = async (what: string, f: () => Promise<void>) => {
    try {
      await f();
      log(`  ${what}: done`);
    } catch (err) {
      errors.push(`${what}: ${(err as Error).message.split('\n')[0]}`);
      log(`  ${what}: failed (${(err as Error).message.split('\n')[0]})`);
    }
  };
  for (const [B, T] of w.prefill)
    await phase(`prefill ${B}x${T}`, async () => void (figures.prefill_tok_s[`${B}x${T}`] = await prefill(lm, B, T, w.iters)));
  for (const B of w.decode.batches)
    await phase(`decode batch ${B}`, async () => void (figures.decode_tok_s[String(B)] = await decode(lm, B, w.decode, w.iters)));
  await phase(
    'decode batch 1, GPU decoder',
    async () => void (figures.decode_tok_s[GPU_DECODER_KEY] = await decodeOutsideTfjs(lm, w.decode, w.iters)),
  );
  await phase('LoRA training', async () => void (figures.train_lora_tok_s = await trainLora(lm, w.train, w.iters)));
  figures.peak_memory_bytes = gpuMemory()?.peak ?? NaN;
  lm.dispose();
  return { figures, errors };
}
