/**
 * The update rules that keep competence (docs/learning-loop.md, "Keeping competence"): each must
 * do what it says on a tiny model, and fail this test when it does not.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { scoreResponses } from '../../main/engine/generation/score.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { policyGradientStep } from '../../main/engine/training/policyStep.js';
import type { TrainBatch } from '../../main/engine/training/train.js';
import { tokenAdvantages } from '../../main/rl/advantages.js';
import type { TrainingConfigPatch } from '../../main/protocol/training.js';
import { Trainer } from '../../main/rl/trainer.js';
import { openDatabase } from '../../main/store/database.js';
import { LearnStore } from '../../main/store/learnStore.js';
import { modelDir } from '../helpers/paths.js';
import { ratedTurn } from '../helpers/ratedTurn.js';
import { waitFor } from '../helpers/testServer.js';

describe('KL to the base model', () => {
  let model: Model;
  before(async () => {
    model = await Model.load(modelDir('qwen3-qknorm'));
  });
  after(() => model.dispose());

  /** An adapter that has drifted from the base model: random B matrices. */
  async function drifted(): Promise<LoraAdapter> {
    const a = LoraAdapter.create(model.config, { r: 4, alpha: 8 }, 3);
    const t = new Map<string, Float32Array>();
    let s = 17;
    for (const [n, x] of await a.toTensors())
      t.set(n, n.includes('lora_B') ? x.data.map(() => 0.3 * (((s = (s * 48271) % 2147483647) / 2147483647) * 2 - 1)) : x.data);
    const cfg = a.config;
    a.dispose();
    return LoraAdapter.fromTensors(model.config, cfg, t);
  }

  /** Steps with no reward signal at all (advantages 0): only the KL term can move the adapter. Returns the KL after each. */
  async function klCurve(klCoef: number, steps: number): Promise<number[]> {
    const adapter = await drifted();
    const opt = new AdamW(adapter.variables(), { lr: 0.01, weightDecay: 0 });
    const items = [
      { promptIds: [1, 5, 9, 14], responseIds: [20, 31, 7, 44, 8] },
      { promptIds: [3, 3, 40], responseIds: [11, 2, 60, 9] },
    ];
    const ref = await scoreResponses(model.lm, items);
    const kls: number[] = [];
    for (let i = 0; i < steps; i++) {
      const cur = await scoreResponses(model.lm, items, { adapter });
      const pad = (p: number[], xs: ArrayLike<number>) => [...p.map(() => 0), ...Array.from(xs)];
      const batch: TrainBatch = {
        ids: items.map((it) => [...it.promptIds, ...it.responseIds]),
        mask: items.map((it) =>
          pad(
            it.promptIds,
            it.responseIds.map(() => 1),
          ),
        ),
        weights: items.map((it) =>
          pad(
            it.promptIds,
            it.responseIds.map(() => 0),
          ),
        ),
        extra: {
          old: items.map((it, b) => pad(it.promptIds, cur[b].logprobs)),
          ref: items.map((it, b) => pad(it.promptIds, ref[b].logprobs)),
        },
      };
      const r = await policyGradientStep(model.lm, adapter, opt, batch, {
        epsLow: 0.2,
        epsHigh: 0.28,
        klCoef,
        entropyCoef: 0,
        learningRate: 0.01,
      });
      kls.push(r.metrics.kl);
    }
    adapter.dispose();
    opt.dispose();
    return kls;
  }

  it('pulls a drifted policy back towards the base model; without it nothing moves', async () => {
    const pulled = await klCurve(1, 12);
    assert.ok(pulled[0] > 0.01, `the adapter has drifted (KL ${pulled[0]})`);
    assert.ok(pulled.at(-1)! < 0.5 * pulled[0], `KL ${pulled.map((x) => x.toFixed(4)).join(' ')}`);
    const still = await klCurve(0, 4);
    assert.ok(Math.abs(still.at(-1)! - still[0]) < 1e-4 * Math.max(1, still[0]), `KL without the term: ${still.join(' ')}`);
  });
});

describe('the RL reward skips tokens the policy was sure of', () => {
  it('a confident token gets no RL advantage; the OPD part still applies to it', () => {
    const old = [Math.log(0.95), Math.log(0.5), Math.log(0.99)];
    const cfg = { wRl: 0.25, wOpd: 1, opdClip: null, rlSkipConfident: 0.9 };
    assert.deepEqual(tokenAdvantages({ reward: -1, teacherLogprobs: null, oldLogprobs: old }, cfg), [0, -0.25, 0]);
    const withTeacher = tokenAdvantages({ reward: -1, teacherLogprobs: [old[0] - 1, old[1], old[2]], oldLogprobs: old }, cfg);
    assert.deepEqual(
      withTeacher.map((x) => +x.toFixed(6)),
      [-1, -0.25, 0],
    );
    assert.deepEqual(
      tokenAdvantages({ reward: -1, teacherLogprobs: null, oldLogprobs: old }, { ...cfg, rlSkipConfident: null }),
      [-0.25, -0.25, -0.25],
    );
  });
});

/**
 * A trainer on the tiny model over a fresh data folder, with two rated turns (one up, one down)
 * queued before each of `steps` steps; returns what `check` returns after the last step.
 */
async function afterSteps<T>(configPatch: TrainingConfigPatch, steps: number, check: (store: LearnStore) => T): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-keeping-'));
  const db = openDatabase(path.join(dir, 'clawloop.db'));
  const store = new LearnStore(db);
  const trainer = await Trainer.start({
    modelDir: modelDir('qwen3-qknorm'),
    dataDir: dir,
    store,
    configPatch: { feedback_wait_s: 0, ...configPatch },
    emit: () => {},
  });
  void trainer.run();
  try {
    for (let step = 1; step <= steps; step++) {
      ratedTurn(store, -1, 'up');
      ratedTurn(store, -0.5, 'down');
      trainer.wake();
      await waitFor(() => (trainer.status().step === step ? true : null), `step ${step}`);
    }
    return check(store);
  } finally {
    await trainer.stop();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('PPO epochs', () => {
  /** The metrics of one step on the same two rated turns, with `ppo_epochs` passes over them. */
  const firstStep = (ppoEpochs: number) =>
    afterSteps(
      { method: 'rl', batch_size: 2, kl_coef: 0, learning_rate: 0.01, ppo_epochs: ppoEpochs },
      1,
      (store) => store.steps(0)[0].metrics,
    );

  it('later passes over a batch start from where the earlier ones left the policy', async () => {
    const one = await firstStep(1);
    const three = await firstStep(3);
    assert.equal(three.tokens, one.tokens, 'a step counts its tokens once, however many passes');
    assert.notEqual(three.ratio_mean, one.ratio_mean, "the third pass's ratio is measured on an updated policy");
    assert.ok(
      three.pg_loss! < one.pg_loss!,
      `two earlier passes improved the objective on this batch: ${three.pg_loss} (3 passes) vs ${one.pg_loss} (1)`,
    );
  });
});
