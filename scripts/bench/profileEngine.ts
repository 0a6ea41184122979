/**
 * `npm run profile:engine [-- lora|full|prefill|decode] [--backend NAME] [--steps N]`
 *
 * Where a step of the benchmark workload spends its time: every kernel of the active tfjs backend
 * is wrapped with a timer (kernels run synchronously on CPU backends), and the rest of the step is
 * reported as JavaScript overhead (tape, allocation, glue).
 */
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, parseBackendName } from '../../main/engine/backends/backend.js';
import { CausalLM } from '../../main/engine/model/causalLM.js';
import { parseModelConfig } from '../../main/engine/model/config.js';
import { KVCache } from '../../main/engine/model/kvCache.js';
import { readFloats } from '../../main/engine/model/tensorRead.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { computeGradients, crossEntropyLoss } from '../../main/engine/training/train.js';
import { BATCH, BENCH_CONFIG, benchIds, DECODE_TOKENS, SEQ } from './benchConfig.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run profile:engine -- [lora|full|prefill|decode] [--backend NAME] [--steps N] [--top N]

Where a step of the engine benchmark's workload spends its time, kernel by kernel.`;

interface Stat {
  calls: number;
  ms: number;
}

/** Wraps every kernel of `backend` so each call's time accumulates in the returned map. */
function instrument(backend: string): Map<string, Stat> {
  const stats = new Map<string, Stat>();
  for (const k of tf.getKernelsForBackend(backend)) {
    const inner = k.kernelFunc;
    tf.unregisterKernel(k.kernelName, backend);
    tf.registerKernel({
      ...k,
      kernelFunc: (args) => {
        const t0 = performance.now();
        const out = inner(args);
        const dt = performance.now() - t0;
        let key = k.kernelName;
        if (k.kernelName === 'BatchMatMul' || k.kernelName === '_FusedMatMul') {
          const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
          const at = args.attrs as { transposeA?: boolean; transposeB?: boolean };
          key += ` [${a.shape}]${at.transposeA ? 'ᵀ' : ''}·[${b.shape}]${at.transposeB ? 'ᵀ' : ''}`;
        }
        const s = stats.get(key) ?? { calls: 0, ms: 0 };
        s.calls++;
        s.ms += dt;
        stats.set(key, s);
        return out;
      },
    });
  }
  return stats;
}

async function main(): Promise<void> {
  const { values, positionals } = scriptArgs(USAGE, {
    options: { backend: { type: 'string' }, steps: { type: 'string', default: '2' }, top: { type: 'string', default: '25' } },
    allowPositionals: true,
  });
  const mode = positionals[0] ?? 'lora';
  const backend = await initBackend(values.backend ? parseBackendName(values.backend) : undefined);
  const config = parseModelConfig(BENCH_CONFIG);
  const lm = CausalLM.random(config, 0);
  const ids = benchIds();
  const batch = { ids, mask: ids.map((s) => s.map((_, t) => (t > 0 ? 1 : 0))) };
  let step: () => Promise<unknown>;
  if (mode === 'lora') {
    const adapter = LoraAdapter.create(config, { r: 8 }, 1);
    const opt = new AdamW(adapter.variables());
    step = async () => opt.apply((await computeGradients(lm, batch, crossEntropyLoss, { adapter })).grads);
  } else if (mode === 'full') {
    lm.setTrainable(true);
    const opt = new AdamW(lm.parameters());
    step = async () => {
      await opt.apply((await computeGradients(lm, batch, crossEntropyLoss, 'full')).grads);
      lm.weightsChanged();
    };
  } else if (mode === 'prefill') {
    step = () => tf.tidy(() => lm.forward(tf.tensor2d(ids.flat(), [BATCH, SEQ], 'int32'), { lastOnly: true })).data();
  } else if (mode === 'decode') {
    step = async () => {
      const cache = new KVCache(config.numLayers);
      let input = ids[0];
      for (let i = 0; i < DECODE_TOKENS; i++) {
        const logits = await readFloats(tf.tidy(() => lm.forward(tf.tensor2d(input, [1, input.length], 'int32'), { cache, lastOnly: true })));
        input = [logits.indexOf(Math.max(...logits))];
      }
      cache.dispose();
    };
  } else {
    throw new Error(`unknown mode '${mode}'; valid: lora, full, prefill, decode`);
  }
  await step(); // warm-up before instrumenting
  const stats = instrument(backend);
  const steps = Math.max(1, Number(values.steps));
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) await step();
  const total = (performance.now() - t0) / steps;
  let kernels = 0;
  for (const s of stats.values()) kernels += s.ms / steps;
  console.log(
    `${mode} on '${backend}': ${total.toFixed(1)} ms per step; kernels ${kernels.toFixed(1)} ms (${((100 * kernels) / total).toFixed(0)}%), outside kernels ${(total - kernels).toFixed(1)} ms`,
  );
  const rows = [...stats].map(([k, s]) => ({ k, ms: s.ms / steps, calls: s.calls / steps })).sort((a, b) => b.ms - a.ms);
  for (const r of rows.slice(0, Number(values.top))) {
    console.log(
      `${r.ms.toFixed(1).padStart(9)} ms ${((100 * r.ms) / total).toFixed(1).padStart(5)}% ${String(r.calls).padStart(6)}×  ${r.k}`,
    );
  }
}

await main();
