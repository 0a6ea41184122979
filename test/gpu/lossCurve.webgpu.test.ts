import { it } from 'node:test';
import type { BackendName } from '../../main/engine/backends/backend.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { policyGradientStep } from '../../main/engine/training/policyStep.js';
import type { TrainBatch } from '../../main/engine/training/train.js';
import { gpuSkipReason } from '../helpers/gpuSkip.js';
import { gradientModel, lossModel } from '../helpers/modelTolerance.js';
import { assertScalarClose, chained, tolerance } from '../helpers/numeric.js';
import { modelDir } from '../helpers/paths.js';

const STEPS = 5;
const LORA = { r: 4, alpha: 8 };

interface Curve {
  losses: number[];
  ratios: number[];
  seqLen: number;
  tokens: number;
  config: Model['config'];
}

/** Five policy-gradient LoRA steps (the trainer's step: clipped PPO loss, AdamW) on one backend. */
async function lossCurve(backend: BackendName): Promise<Curve> {
  const model = await Model.load(modelDir('qwen3-qknorm'), { backend });
  const adapter = LoraAdapter.create(model.config, LORA, 7);
  const opt = new AdamW(adapter.variables(), { lr: 1e-2 });
  const ids = [model.tokenizer.encode('the quick brown fox jumps'), model.tokenizer.encode('hello world! what is the answer?')];
  const batch: TrainBatch = {
    ids,
    mask: ids.map((s) => s.map((_, t) => (t > 1 ? 1 : 0))),
    weights: ids.map((s, b) => s.map(() => (b === 0 ? 1 : -0.5))), // advantages of both signs
    extra: { old: ids.map((s) => s.map(() => -4)) },
  };
  const losses: number[] = [];
  const ratios: number[] = [];
  for (let step = 0; step < STEPS; step++) {
    const r = await policyGradientStep(model.lm, adapter, opt, batch, { epsLow: 0.2, epsHigh: 0.28, klCoef: 0, entropyCoef: 0, learningRate: 1e-2 });
    losses.push(r.metrics.loss);
    ratios.push(r.metrics.ratio_mean);
  }
  const curve = { losses, ratios, seqLen: Math.max(...ids.map((s) => s.length)), tokens: ids.flat().length, config: model.config };
  opt.dispose();
  adapter.dispose();
  model.dispose();
  return curve;
}

it("a LoRA training run has the CPU backend's loss curve on the GPU (5 policy-gradient steps)", { skip: await gpuSkipReason() }, async () => {
  const cpu = await lossCurve('wasm');
  const gpu = await lossCurve('webgpu');
  const opts = { loraRank: LORA.r };
  const loss = lossModel(cpu.config, cpu.seqLen, cpu.tokens, opts);
  const grad = gradientModel(cpu.config, cpu.seqLen, cpu.tokens, opts);
  cpu.losses.forEach((want, k) => {
    // Step k's loss comes after k updates, each made from a gradient: the roundings of those
    // gradient paths add to the loss's own. Its terms are ratio·advantage·(log-prob terms of
    // magnitude ≥ log V), so that is the scale the roundings are relative to.
    const tol = tolerance(chained(loss, k * grad.chain!, grad.length));
    const scale = Math.log(cpu.config.vocabSize) * Math.max(1, cpu.ratios[k]);
    assertScalarClose(gpu.losses[k], want, tol, `loss at step ${k + 1}`, { scale });
  });
});
