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
import { expected, tensor, type Expected } from '../helpers/fixtures.js';
import { assertRelClose } from '../helpers/numeric.js';
import { modelDir, type FixtureModel } from '../helpers/paths.js';

/** The reference's fixed loss: −Σ mask·w·log p / Σ mask. */
const weightedLoss: LossFn = ({ logprobs, mask, weights }) =>
  tf.neg(tf.div(tf.sum(tf.mul(tf.mul(logprobs, weights), mask)), tf.sum(mask))) as tf.Scalar;

/** The fixture's batch: mask and weights align with ids[:, 1:], so prepend the unused entry 0. */
function fixtureBatch(e: Expected): TrainBatch {
  return { ids: e.ids, mask: e.mask.map((m) => [0, ...m]), weights: e.weights.map((w) => [0, ...w]) };
}

/** A parameter as PyTorch lays it out. */
function hfLayout(name: string, v: tf.Tensor): Float32Array {
  const data = v.dataSync() as Float32Array;
  if (v.rank !== 2) return data;
  const [rows, cols] = v.shape;
  const transposed = name.includes('lora_') || CausalLM.isTransposed(name);
  return transposed ? transpose2d(data, rows, cols) : data;
}

const LORA_MODELS: FixtureModel[] = ['llama-gqa', 'qwen2-tied', 'qwen3-qknorm', 'mistral-swa'];
for (const name of LORA_MODELS) {
  describe(`LoRA training matches PyTorch: ${name}`, () => {
    let model: Model;
    const e = expected(name);
    before(async () => (model = await Model.load(modelDir(name))));
    after(() => model.dispose());

    it('loss and every LoRA gradient (1e-4 relative)', () => {
      const adapter = LoraAdapter.load(path.join(modelDir(name), 'adapter'), model.config);
      const { loss, grads, tokens } = computeGradients(model.lm, fixtureBatch(e), weightedLoss, { adapter });
      assert.ok(Math.abs(loss - e.loss) <= 1e-4 * Math.abs(e.loss), `loss ${loss} vs ${e.loss}`);
      assert.equal(tokens, e.mask.flat().filter((m) => m !== 0).length);
      assert.equal(grads.size, adapter.variables().size);
      for (const [pname, g] of grads) assertRelClose(hfLayout(pname, g), tensor(e, `grad.${pname}`), 1e-4, `grad ${pname}`);
      grads.forEach((g) => g.dispose());
      adapter.dispose();
    });

    it('two AdamW steps with clipping give PyTorch parameters (1e-4 relative)', () => {
      const adapter = LoraAdapter.load(path.join(modelDir(name), 'adapter'), model.config);
      const a = e.adamw;
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
        assert.ok(Math.abs(info.gradNorm - e.grad_norms[step - 1]) <= 1e-4 * e.grad_norms[step - 1], `grad norm step ${step}`);
        assert.equal(info.clipped, e.grad_norms[step - 1] > a.max_grad_norm);
        for (const [pname, v] of adapter.variables()) {
          assertRelClose(hfLayout(pname, v), tensor(e, `adamw${step}.${pname}`), 1e-4, `step ${step} ${pname}`);
        }
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

    it('every parameter gradient (tied embedding, biases, q/k norms) within 1e-4 relative', () => {
      model.lm.setTrainable(true);
      const { loss, grads } = computeGradients(model.lm, fixtureBatch(e), weightedLoss, 'full');
      model.lm.setTrainable(false);
      assert.ok(Math.abs(loss - e.full_loss!) <= 1e-4 * Math.abs(e.full_loss!));
      assert.equal(grads.size, model.lm.parameters().size);
      for (const [pname, g] of grads) assertRelClose(hfLayout(pname, g), tensor(e, `fullgrad.${pname}`), 1e-4, `grad ${pname}`);
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
