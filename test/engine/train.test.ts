import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { CausalLM } from '../../main/engine/model/causalLM.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { Rng } from '../../main/util/random.js';
import { scoreResponses } from '../../main/engine/generation/score.js';
import { transpose2d } from '../../main/engine/model/tensorUtil.js';
import { computeGradients, crossEntropyLoss, type LossFn, type TrainBatch } from '../../main/engine/training/train.js';
import { adamwBounds, gradNormError } from '../helpers/adamwTolerance.js';
import { expected, tensor, type Expected } from '../helpers/fixtures.js';
import { gradientModel, logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, assertScalarClose, assertWithinBounds, maxAbsOf, tolerance, type Tolerance } from '../helpers/numeric.js';
import { modelDir, type FixtureModel } from '../helpers/paths.js';

/** The reference's fixed loss: −Σ mask·w·log p / Σ mask. */
const weightedLoss: LossFn = ({ logprobs, mask, weights }) =>
  tf.neg(tf.div(tf.sum(tf.mul(tf.mul(logprobs, weights), mask)), tf.sum(mask))) as tf.Scalar;

/** The fixture's batch: mask and weights align with ids[:, 1:], so prepend the unused entry 0. */
function fixtureBatch(e: Expected): TrainBatch {
  return { ids: e.ids, mask: e.mask.map((m) => [0, ...m]), weights: e.weights.map((w) => [0, ...w]) };
}

/** A parameter (or its gradient) of `lm` as PyTorch lays it out. */
function hfLayout(lm: CausalLM, name: string, v: tf.Tensor): Float32Array {
  const data = v.dataSync() as Float32Array;
  if (v.rank !== 2) return data;
  const [rows, cols] = v.shape;
  const transposed = name.includes('lora_') || lm.isTransposed(name);
  return transposed ? transpose2d(data, rows, cols) : data;
}

/** The fixture batch's shape: sequence length and tokens in the batch. */
function batchShape(e: Expected): [number, number] {
  return [e.ids[0].length, e.ids.flat().length];
}

/**
 * The tolerance of the fixture's loss −Σ m·w·log p / Σ m. It inherits each log-prob's error
 * (bounded by the log-prob tolerance) weighted by w; independent errors add in quadrature, so by
 * √Σ (m·w)² / Σ m times that bound. Its own sum over the batch rounds relative to Σ m·|w·log p| / Σ m.
 */
function lossTolerance(model: Model, e: Expected, logprobs: Float32Array, lora: boolean): Tolerance {
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
function gradTolerance(model: Model, e: Expected, lora: boolean): Tolerance {
  return tolerance(gradientModel(model.config, ...batchShape(e), { loraRank: lora ? e.lora.r : 0 }));
}

const LORA_MODELS: FixtureModel[] = ['llama-gqa', 'qwen2-tied', 'qwen3-qknorm', 'mistral-swa'];
for (const name of LORA_MODELS) {
  describe(`LoRA training matches PyTorch: ${name}`, () => {
    let model: Model;
    const e = expected(name);
    before(async () => (model = await Model.load(modelDir(name))));
    after(() => model.dispose());

    it('loss and every LoRA gradient (tolerance from the forward and backward reductions)', () => {
      const adapter = LoraAdapter.load(path.join(modelDir(name), 'adapter'), model.config);
      const { loss, grads, tokens } = computeGradients(model.lm, fixtureBatch(e), weightedLoss, { adapter });
      assertScalarClose(loss, e.loss, lossTolerance(model, e, tensor(e, 'lora_logprobs'), true), 'loss');
      assert.equal(tokens, e.mask.flat().filter((m) => m !== 0).length);
      assert.equal(grads.size, adapter.variables().size);
      const tol = gradTolerance(model, e, true);
      for (const [pname, g] of grads) assertClose(hfLayout(model.lm, pname, g), tensor(e, `grad.${pname}`), tol, `grad ${pname}`);
      grads.forEach((g) => g.dispose());
      adapter.dispose();
    });

    it('two AdamW steps with clipping give PyTorch parameters (per-element bound, adamwTolerance.ts)', () => {
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
        const { grads } = computeGradients(model.lm, fixtureBatch(e), weightedLoss, { adapter });
        const info = opt.apply(grads);
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
          assertWithinBounds(hfLayout(model.lm, pname, v), want, b.bounds, `step ${step} ${pname}`, b.why);
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

for (const name of ['qwen2-tied', 'qwen3-qknorm'] as const) {
  describe(`full fine-tuning gradients match PyTorch: ${name}`, () => {
    let model: Model;
    const e = expected(name);
    before(async () => (model = await Model.load(modelDir(name))));
    after(() => model.dispose());

    it('every parameter gradient (tied embedding, biases, q/k norms) within the derived tolerance', () => {
      model.lm.setTrainable(true);
      const { loss, grads } = computeGradients(model.lm, fixtureBatch(e), weightedLoss, 'full');
      model.lm.setTrainable(false);
      assertScalarClose(loss, e.full_loss!, lossTolerance(model, e, tensor(e, 'logprobs'), false), 'loss');
      assert.equal(grads.size, model.lm.parameters().size);
      const tol = gradTolerance(model, e, false);
      for (const [pname, g] of grads) assertClose(hfLayout(model.lm, pname, g), tensor(e, `fullgrad.${pname}`), tol, `grad ${pname}`);
      grads.forEach((g) => g.dispose());
    });
  });
}

describe('training behaviour', () => {
  let model: Model;
  before(async () => (model = await Model.load(modelDir('qwen3-qknorm'))));
  after(() => model.dispose());
  const batch = (): TrainBatch => {
    const ids = [model.tokenizer.encode('the quick brown fox'), model.tokenizer.encode('hello world! what is the answer?')];
    return { ids, mask: ids.map((s) => s.map((_, t) => (t > 1 ? 1 : 0))) };
  };

  it('LoRA steps change every LoRA parameter, leave base weights alone, and lower the loss', () => {
    const base = new Map([...model.lm.parameters()].map(([n, v]) => [n, Float32Array.from(v.dataSync())]));
    const adapter = LoraAdapter.create(model.config, { r: 4, alpha: 8 }, 5);
    const before0 = new Map([...adapter.variables()].map(([n, v]) => [n, Float32Array.from(v.dataSync())]));
    const opt = new AdamW(adapter.variables(), { lr: 1e-2 });
    const losses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const { loss, grads } = computeGradients(model.lm, batch(), crossEntropyLoss, { adapter });
      losses.push(loss);
      assert.ok(Number.isFinite(loss));
      assert.equal(opt.apply(grads).skipped, false);
    }
    assert.ok(losses[7] < losses[0], `loss ${losses[0]} -> ${losses[7]}`);
    for (const [n, v] of adapter.variables()) assert.notDeepEqual(v.dataSync(), before0.get(n), `${n} unchanged`);
    for (const [n, v] of model.lm.parameters()) assert.deepEqual(v.dataSync(), base.get(n), `base ${n} changed`);
    opt.dispose();
    adapter.dispose();
  });

  it('optimizer state saves and loads: a resumed run takes the same step', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-opt-'));
    const a = LoraAdapter.create(model.config, { r: 4 }, 9);
    const optA = new AdamW(a.variables(), { lr: 1e-2 });
    optA.apply(computeGradients(model.lm, batch(), crossEntropyLoss, { adapter: a }).grads);
    a.save(path.join(dir, 'adapter'));
    optA.save(path.join(dir, 'optimizer.safetensors'));
    const b = LoraAdapter.load(path.join(dir, 'adapter'), model.config);
    const optB = new AdamW(b.variables(), { lr: 1e-2 });
    optB.load(path.join(dir, 'optimizer.safetensors'));
    assert.equal(optB.step, 1);
    optA.apply(computeGradients(model.lm, batch(), crossEntropyLoss, { adapter: a }).grads);
    optB.apply(computeGradients(model.lm, batch(), crossEntropyLoss, { adapter: b }).grads);
    for (const [n, v] of a.variables()) assert.deepEqual(b.variables().get(n)!.dataSync(), v.dataSync(), n);
    [optA, optB, a, b].forEach((x) => x.dispose());
    fs.rmSync(dir, { recursive: true });
  });

  it('a NaN gradient skips the step and changes nothing', () => {
    const a = LoraAdapter.create(model.config, { r: 2 }, 2);
    const opt = new AdamW(a.variables());
    const snapshot = [...a.variables()].map(([, v]) => Float32Array.from(v.dataSync()));
    const grads = new Map([...a.variables()].map(([n, v]) => [n, tf.fill(v.shape, NaN)]));
    const info = opt.apply(grads);
    assert.equal(info.skipped, true);
    assert.equal(opt.step, 0);
    [...a.variables()].forEach(([, v], i) => assert.deepEqual(v.dataSync(), snapshot[i]));
    opt.dispose();
    a.dispose();
  });

  it('LoRA dropout is active only in training, and a seed makes it repeatable', async () => {
    const a = LoraAdapter.create(model.config, { r: 4, dropout: 0.5 }, 4);
    for (const v of a.variables().values()) v.assign(tf.add(v, 0.05)); // non-zero B, so dropout matters
    const lossWith = (seed: number) => {
      const r = computeGradients(model.lm, batch(), crossEntropyLoss, { adapter: a }, { rng: new Rng(seed) });
      r.grads.forEach((g) => g.dispose());
      return r.loss;
    };
    assert.equal(lossWith(1), lossWith(1), 'same seed, same dropout masks');
    assert.notEqual(lossWith(1), lossWith(2), 'another seed, other masks');
    const tensors = new Map([...a.toTensors()].map(([n, t]) => [n, t.data]));
    const noDropout = LoraAdapter.fromTensors(model.config, { ...a.config, dropout: 0 }, tensors);
    const items = batch().ids.map((ids) => ({ promptIds: ids.slice(0, 1), responseIds: ids.slice(1) }));
    const [x] = await scoreResponses(model.lm, items, { adapter: a });
    const [y] = await scoreResponses(model.lm, items, { adapter: noDropout });
    assert.deepEqual(x.logprobs, y.logprobs, 'scoring (inference) ignores dropout');
    a.dispose();
    noDropout.dispose();
  });

  it('refuses an empty selection and mismatched masks with clear errors', () => {
    const a = LoraAdapter.create(model.config, { r: 2 });
    assert.throws(
      () => computeGradients(model.lm, { ids: [[1, 2, 3]], mask: [[0, 0, 0]] }, crossEntropyLoss, { adapter: a }),
      /selects no tokens/,
    );
    assert.throws(
      () => computeGradients(model.lm, { ids: [[1, 2, 3]], mask: [[0, 1]] }, crossEntropyLoss, { adapter: a }),
      /mask\[0\] has length 2/,
    );
    assert.throws(() => computeGradients(model.lm, batch(), crossEntropyLoss, 'full'), /setTrainable/);
    a.dispose();
  });
});

/** Trainable elements of an adapter. */
function adapterSize(adapter: LoraAdapter): number {
  let n = 0;
  for (const v of adapter.variables().values()) n += v.size;
  return n;
}
