import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import type { BackendName } from '../../main/engine/backends/backend.js';
import type { CausalLM } from '../../main/engine/model/causalLM.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { transpose2d } from '../../main/engine/model/tensorUtil.js';
import { computeGradients, type LossFn, type TrainBatch } from '../../main/engine/training/train.js';
import { adamwBounds, gradNormError } from '../helpers/adamwTolerance.js';
import { expected, tensor, type Expected } from '../helpers/fixtures.js';
import { gradientModel, logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, assertScalarClose, assertWithinBounds, maxAbsOf, tolerance, type Tolerance } from '../helpers/numeric.js';
import { modelDir, type FixtureModel } from '../helpers/paths.js';

/*
 * LoRA training against PyTorch (scripts/reference/make_fixtures.py): the loss, every LoRA
 * gradient and two AdamW steps, with tolerances derived from the reductions on each path. Run on
 * the CPU backends by train.test.ts (wasm and, where the addon is built, native) and on the GPU by
 * test/gpu/train.webgpu.test.ts.
 */

/** The reference's fixed loss: −Σ mask·w·log p / Σ mask. */
export const weightedLoss: LossFn = ({ logprobs, mask, weights }) =>
  tf.neg(tf.div(tf.sum(tf.mul(tf.mul(logprobs, weights), mask)), tf.sum(mask))) as tf.Scalar;

/** The fixture's batch: mask and weights align with ids[:, 1:], so prepend the unused entry 0. */
export function fixtureBatch(e: Expected): TrainBatch {
  return { ids: e.ids, mask: e.mask.map((m) => [0, ...m]), weights: e.weights.map((w) => [0, ...w]) };
}

/** A parameter (or its gradient) of `lm` as PyTorch lays it out. */
export async function hfLayout(lm: CausalLM, name: string, v: tf.Tensor): Promise<Float32Array> {
  const data = (await v.data()) as Float32Array;
  if (v.rank !== 2) return data;
  const [rows, cols] = v.shape;
  const transposed = name.includes('lora_') || lm.isTransposed(name);
  return transposed ? transpose2d(data, rows, cols) : data;
}

/** The fixture batch's shape: sequence length and tokens in the batch. */
export function batchShape(e: Expected): [number, number] {
  return [e.ids[0].length, e.ids.flat().length];
}

/**
 * The tolerance of the fixture's loss −Σ m·w·log p / Σ m. It inherits each log-prob's error
 * (bounded by the log-prob tolerance) weighted by w; independent errors add in quadrature, so by
 * √Σ (m·w)² / Σ m times that bound. Its own sum over the batch rounds relative to Σ m·|w·log p| / Σ m.
 */
export function lossTolerance(model: Model, e: Expected, logprobs: Float32Array, lora: boolean): Tolerance {
  const [seqLen, tokens] = batchShape(e);
  const lp = tolerance(logprobsModel(model.config, seqLen, { loraRank: lora ? e.lora.r : 0 }));
  const sum = tolerance({ dtype: 'float32', length: tokens, chain: 2 });
  const w = e.weights.flat();
  let count = 0;
  let squares = 0;
  let terms = 0;
  e.mask.flat().forEach((m, i) => {
    count += m;
    squares += (m * w[i]) ** 2;
    terms += m * Math.abs(w[i] * logprobs[i]);
  });
  const atol = ((lp.atol + lp.rtol * maxAbsOf(logprobs)) * Math.sqrt(squares)) / count + (sum.rtol * terms) / count;
  return { rtol: 0, atol, why: `log-prob errors weighted by the loss weights (${lp.why}) and the batch sum (${sum.why})` };
}

/** Gradient tolerance of the fixture's loss, with or without the LoRA adapter. */
export function gradTolerance(model: Model, e: Expected, lora: boolean): Tolerance {
  return tolerance(gradientModel(model.config, ...batchShape(e), { loraRank: lora ? e.lora.r : 0 }));
}

const LORA_MODELS: FixtureModel[] = ['llama-gqa', 'qwen2-tied', 'qwen3-qknorm', 'mistral-swa'];

/** LoRA loss, gradients and two AdamW steps against PyTorch's, on one backend. */
export function loraTrainingSuite(backend: BackendName, opts: { skip?: string | false } = {}): void {
for (const name of LORA_MODELS) {
  describe(`LoRA training matches PyTorch: ${name} (${backend})`, { skip: opts.skip ?? false }, () => {
    let model: Model;
    const e = expected(name);
    before(async () => (model = await Model.load(modelDir(name), { backend })));
    after(() => model.dispose());

    it('loss and every LoRA gradient (tolerance from the forward and backward reductions)', async () => {
      const adapter = LoraAdapter.load(path.join(modelDir(name), 'adapter'), model.config);
      const { loss, grads, tokens } = await computeGradients(model.lm, fixtureBatch(e), weightedLoss, { adapter });
      assertScalarClose(loss, e.loss, lossTolerance(model, e, tensor(e, 'lora_logprobs'), true), 'loss');
      assert.equal(tokens, e.mask.flat().filter((m) => m !== 0).length);
      assert.equal(grads.size, adapter.variables().size);
      const tol = gradTolerance(model, e, true);
      for (const [pname, g] of grads) assertClose(await hfLayout(model.lm, pname, g), tensor(e, `grad.${pname}`), tol, `grad ${pname}`);
      grads.forEach((g) => g.dispose());
      adapter.dispose();
    });

    it('two AdamW steps with clipping give PyTorch parameters (per-element bound, adamwTolerance.ts)', async () => {
      const adapter = LoraAdapter.load(path.join(modelDir(name), 'adapter'), model.config);
      const a = e.adamw;
      const gradTol = gradTolerance(model, e, true);
      const grad1 = new Map([...adapter.variables().keys()].map((p) => [p, tensor(e, `grad.${p}`)]));
      const normError = gradNormError([...grad1.values()], gradTol);
      const clip = e.grad_norms.map((n) => Math.min(1, a.max_grad_norm / (n + 1e-6)));
      const opt = new AdamW(adapter.variables(), {
        lr: a.lr,
        beta1: a.betas[0],
        beta2: a.betas[1],
        eps: a.eps,
        weightDecay: a.weight_decay,
        maxGradNorm: a.max_grad_norm,
      });
      for (const step of [1, 2]) {
        const { grads } = await computeGradients(model.lm, fixtureBatch(e), weightedLoss, { adapter });
        const info = await opt.apply(grads);
        const norm = e.grad_norms[step - 1];
        assertScalarClose(
          info.gradNorm,
          norm,
          { rtol: normError, atol: 0, why: 'the gradient tolerance carried through the norm (gradNormError)' },
          `grad norm step ${step}`,
        );
        assert.equal(info.clipped, norm > a.max_grad_norm);
        const run = { lr: a.lr, beta1: a.betas[0], beta2: a.betas[1], eps: a.eps, steps: step, clip, clipError: normError };
        let tight = 0;
        for (const [pname, v] of adapter.variables()) {
          const want = tensor(e, `adamw${step}.${pname}`);
          const g1 = grad1.get(pname)!;
          const b = adamwBounds(want, g1, { ...run, gradError: gradTol.atol + gradTol.rtol * maxAbsOf(g1) });
          assertWithinBounds(await hfLayout(model.lm, pname, v), want, b.bounds, `step ${step} ${pname}`, b.why);
          tight += b.tight;
        }
        // The comparison must still pin the update rule down: most elements are held to a small
        // fraction of one step (only those with tiny gradients may move by a whole step).
        assert.ok(
          tight >= 0.5 * adapterSize(adapter),
          `step ${step}: only ${tight} of ${adapterSize(adapter)} elements have a tight bound`,
        );
      }
      assert.equal(opt.step, 2);
      opt.dispose();
      adapter.dispose();
    });
  });
}
}

/** Trainable elements of an adapter. */
function adapterSize(adapter: LoraAdapter): number {
  let n = 0;
  for (const v of adapter.variables().values()) n += v.size;
  return n;
}
