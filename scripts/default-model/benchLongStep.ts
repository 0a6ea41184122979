/**
 * `node dist/scripts/default-model/benchLongStep.js [--seq 1024,4096,8192] [--steps 2] [--model DIR]`
 *
 * The bundled model's full fine-tuning step on one long sequence (the agent phase trains on
 * sequences up to 8,192 tokens): seconds per step, tokens per second and the process's peak memory,
 * with the CPU and thread count named. Run it as the training would run (`nice -n 19`,
 * CLAWLOOP_THREADS=1) to estimate what an hour buys. Weights start from the model folder with its
 * context raised to the longest sequence (RoPE positions past the trained 1,024); each step is a
 * real AdamW update, so the figures include the optimizer.
 */
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { loadNativeAddon } from '../../main/engine/backends/nativeAddon.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { computeGradients, crossEntropyLoss } from '../../main/engine/training/train.js';
import { defaultModelDir } from '../../main/resources.js';
import { scriptArgs } from '../scriptArgs.js';
import { longContextModel } from './longContextModel.js';

const USAGE = `Usage: node dist/scripts/default-model/benchLongStep.js [options]
  --seq LIST     sequence lengths to time, comma-separated (default: 1024,4096,8192)
  --steps N      timed steps per length, after one untimed warm-up step; 0 times the first step alone (default: 2)
  --model DIR    model folder (default: the bundled model)`;

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: { seq: { type: 'string', default: '1024,4096,8192' }, steps: { type: 'string', default: '2' }, model: { type: 'string' } },
  });
  const lengths = values.seq!.split(',').map(Number);
  const steps = Number(values.steps);
  const dir = path.resolve(values.model ?? defaultModelDir());
  await initBackend(undefined, { log: () => {} });
  const lm = longContextModel(dir, Math.max(8192, ...lengths));
  const config = lm.config;
  lm.setTrainable(true);
  const opt = new AdamW(lm.parameters(), { lr: 1e-5, weightDecay: 0.1, beta1: 0.9, beta2: 0.95, maxGradNorm: 1 });
  const info = loadNativeAddon()?.info();
  console.log(
    `CPU: ${os.cpus()[0]?.model} (${os.availableParallelism()} logical), backend ${tf.getBackend()}, ${info?.threads ?? '?'} thread(s), nice ${os.getPriority()}`,
  );
  // CPU seconds are the figure that holds on a shared machine: wall time is CPU time over the share
  // of a core the process got (both printed).
  console.log('tokens | s/step (wall) | CPU s/step | share of a core | tokens/s (wall) | tokens per CPU s | peak RSS (GB)');
  for (const T of lengths) {
    const ids = [Array.from({ length: T }, (_, i) => (i * 7919) % (config.vocabSize - 16))];
    const mask = [Array.from({ length: T }, (_, i) => (i === 0 ? 0 : 1))];
    const times: number[] = [];
    const cpu: number[] = [];
    const runs = steps === 0 ? 1 : steps + 1; // a warm-up step first, unless only the first is timed
    for (let s = 0; s < runs; s++) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const g = await computeGradients(lm, { ids, mask }, crossEntropyLoss, 'full');
      await opt.apply(g.grads, 1e-5);
      lm.weightsChanged();
      if (s > 0 || steps === 0) {
        times.push((performance.now() - t0) / 1000);
        const c = process.cpuUsage(c0);
        cpu.push((c.user + c.system) / 1e6);
      }
    }
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    const cpuMean = cpu.reduce((a, b) => a + b, 0) / cpu.length;
    const rss = (process.resourceUsage().maxRSS / 2 ** 20).toFixed(1);
    console.log(
      `${T} | ${mean.toFixed(1)} | ${cpuMean.toFixed(1)} | ${(cpuMean / mean).toFixed(2)} | ${(T / mean).toFixed(0)} | ${(T / cpuMean).toFixed(0)} | ${rss}`,
    );
  }
}

await main();
