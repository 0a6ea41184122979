import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { Rng } from '../../main/util/random.js';
import { scoreResponses } from '../../main/engine/generation/score.js';
import { computeGradients, crossEntropyLoss, type TrainBatch } from '../../main/engine/training/train.js';
import { fixtureBatch, gradTolerance, hfLayout, lossTolerance, loraTrainingSuite, weightedLoss } from './loraTrainingSuite.js';
import { expected, tensor } from '../helpers/fixtures.js';
import { assertClose, assertScalarClose } from '../helpers/numeric.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';
import { modelDir } from '../helpers/paths.js';

loraTrainingSuite('wasm');
loraTrainingSuite('native', { skip: nativeSkipReason() });

for (const name of ['qwen2-tied', 'qwen3-qknorm'] as const) {
  describe(`full fine-tuning gradients match PyTorch: ${name}`, () => {
    let model: Model;
    const e = expected(name);
    before(async () => (model = await Model.load(modelDir(name))));
    after(() => model.dispose());

    it('every parameter gradient (tied embedding, biases, q/k norms) within the derived tolerance', async () => {
      model.lm.setTrainable(true);
      const { loss, grads } = await computeGradients(model.lm, fixtureBatch(e), weightedLoss, 'full');
      model.lm.setTrainable(false);
      assertScalarClose(loss, e.full_loss!, lossTolerance(model, e, tensor(e, 'logprobs'), false), 'loss');
      assert.equal(grads.size, model.lm.parameters().size);
      const tol = gradTolerance(model, e, false);
      for (const [pname, g] of grads) assertClose(await hfLayout(model.lm, pname, g), tensor(e, `fullgrad.${pname}`), tol, `grad ${pname}`);
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

  it('LoRA steps change every LoRA parameter, leave base weights alone, and lower the loss', async () => {
    const base = new Map([...model.lm.parameters()].map(([n, v]) => [n, Float32Array.from(v.dataSync())]));
    const adapter = LoraAdapter.create(model.config, { r: 4, alpha: 8 }, 5);
    const before0 = new Map([...adapter.variables()].map(([n, v]) => [n, Float32Array.from(v.dataSync())]));
    const opt = new AdamW(adapter.variables(), { lr: 1e-2 });
    const losses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const { loss, grads } = await computeGradients(model.lm, batch(), crossEntropyLoss, { adapter });
      losses.push(loss);
      assert.ok(Number.isFinite(loss));
      assert.equal((await opt.apply(grads)).skipped, false);
    }
    assert.ok(losses[7] < losses[0], `loss ${losses[0]} -> ${losses[7]}`);
    for (const [n, v] of adapter.variables()) assert.notDeepEqual(v.dataSync(), before0.get(n), `${n} unchanged`);
    for (const [n, v] of model.lm.parameters()) assert.deepEqual(v.dataSync(), base.get(n), `base ${n} changed`);
    opt.dispose();
    adapter.dispose();
  });

  it('optimizer state saves and loads: a resumed run takes the same step', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-opt-'));
    const a = LoraAdapter.create(model.config, { r: 4 }, 9);
    const optA = new AdamW(a.variables(), { lr: 1e-2 });
    await optA.apply((await computeGradients(model.lm, batch(), crossEntropyLoss, { adapter: a })).grads);
    await a.save(path.join(dir, 'adapter'));
    await optA.save(path.join(dir, 'optimizer.safetensors'));
    const b = LoraAdapter.load(path.join(dir, 'adapter'), model.config);
    const optB = new AdamW(b.variables(), { lr: 1e-2 });
    optB.load(path.join(dir, 'optimizer.safetensors'));
    assert.equal(optB.step, 1);
    await optA.apply((await computeGradients(model.lm, batch(), crossEntropyLoss, { adapter: a })).grads);
    await optB.apply((await computeGradients(model.lm, batch(), crossEntropyLoss, { adapter: b })).grads);
    for (const [n, v] of a.variables()) assert.deepEqual(b.variables().get(n)!.dataSync(), v.dataSync(), n);
    [optA, optB, a, b].forEach((x) => x.dispose());
    fs.rmSync(dir, { recursive: true });
  });

  it('a NaN gradient skips the step and changes nothing', async () => {
    const a = LoraAdapter.create(model.config, { r: 2 }, 2);
    const opt = new AdamW(a.variables());
    const snapshot = [...a.variables()].map(([, v]) => Float32Array.from(v.dataSync()));
    const grads = new Map([...a.variables()].map(([n, v]) => [n, tf.fill(v.shape, NaN)]));
    const info = await opt.apply(grads);
    assert.equal(info.skipped, true);
    assert.equal(opt.step, 0);
    [...a.variables()].forEach(([, v], i) => assert.deepEqual(v.dataSync(), snapshot[i]));
    opt.dispose();
    a.dispose();
  });

  it('LoRA dropout is active only in training, and a seed makes it repeatable', async () => {
    const a = LoraAdapter.create(model.config, { r: 4, dropout: 0.5 }, 4);
    for (const v of a.variables().values()) v.assign(tf.add(v, 0.05)); // non-zero B, so dropout matters
    const lossWith = async (seed: number) => {
      const r = await computeGradients(model.lm, batch(), crossEntropyLoss, { adapter: a }, { rng: new Rng(seed) });
      r.grads.forEach((g) => g.dispose());
      return r.loss;
    };
    assert.equal(await lossWith(1), await lossWith(1), 'same seed, same dropout masks');
    assert.notEqual(await lossWith(1), await lossWith(2), 'another seed, other masks');
    const tensors = new Map([...(await a.toTensors())].map(([n, t]) => [n, t.data]));
    const noDropout = LoraAdapter.fromTensors(model.config, { ...a.config, dropout: 0 }, tensors);
    const items = batch().ids.map((ids) => ({ promptIds: ids.slice(0, 1), responseIds: ids.slice(1) }));
    const [x] = await scoreResponses(model.lm, items, { adapter: a });
    const [y] = await scoreResponses(model.lm, items, { adapter: noDropout });
    assert.deepEqual(x.logprobs, y.logprobs, 'scoring (inference) ignores dropout');
    a.dispose();
    noDropout.dispose();
  });

  it('refuses an empty selection and mismatched masks with clear errors', async () => {
    const a = LoraAdapter.create(model.config, { r: 2 });
    await assert.rejects(
      () => computeGradients(model.lm, { ids: [[1, 2, 3]], mask: [[0, 0, 0]] }, crossEntropyLoss, { adapter: a }),
      /selects no tokens/,
    );
    await assert.rejects(
      () => computeGradients(model.lm, { ids: [[1, 2, 3]], mask: [[0, 1]] }, crossEntropyLoss, { adapter: a }),
      /mask\[0\] has length 2/,
    );
    await assert.rejects(() => computeGradients(model.lm, batch(), crossEntropyLoss, 'full'), /setTrainable/);
    a.dispose();
  });
});

