import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LoraAdapter } from '../../../main/engine/model/lora.js';
import { DEFAULT_TRAINING_CONFIG, type TrainingConfigPatch } from '../../../main/protocol/training.js';
import { Model } from '../../../main/engine/model/model.js';
import { scoreResponses } from '../../../main/engine/generation/score.js';
import { answerText, greedyAnswers, greedyAnswersLike } from '../../../main/rl/competenceAnswers.js';
import { CompetenceGate } from '../../../main/rl/gate/competenceGate.js';
import { confirmReference } from '../../../main/rl/gate/confirmReference.js';
import { raisedReference } from '../../../main/rl/gate/gateState.js';
import { checkpointDir } from '../../../main/store/checkpointPaths.js';
import type { TrainerContext } from '../../../main/rl/trainerContext.js';
import { Trainer } from '../../../main/rl/trainer.js';
import type { TrainerEvent } from '../../../main/rl/trainerEvents.js';
import { AppQueries } from '../../../main/store/appQueries.js';
import { openDatabase, type Db } from '../../../main/store/database.js';
import { LearnStore } from '../../../main/store/learnStore.js';
import { COMPETENCE_FILE, competenceSample, loadCompetenceSet } from '../../../main/tasks/competenceSet.js';
import { modelDir } from '../../helpers/paths.js';
import { longContextModel, waitFor } from '../../helpers/testServer.js';
import { ratedTurn } from '../../helpers/ratedTurn.js';

const PROMPTS = ['count to three', 'name a colour', 'say hello', 'what is two plus two', 'pick a number', 'tell a joke'];
const MAX_TOKENS = 8;

/** Perturbs every LoRA B matrix, so the adapter changes the model's outputs (B starts at zero). */
async function perturbed(model: Model, scale: number, seed: number): Promise<LoraAdapter> {
  const a = LoraAdapter.create(model.config, { r: 4, alpha: 8 }, seed);
  const tensors = new Map<string, Float32Array>();
  let s = seed;
  const uniform = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  for (const [name, x] of await a.toTensors()) tensors.set(name, name.includes('lora_B') ? x.data.map(() => scale * uniform()) : x.data);
  const cfg = a.config;
  a.dispose();
  return LoraAdapter.fromTensors(model.config, cfg, tensors);
}

describe('competence gate: greedy answers diffed against a reference are exact', () => {
  let model: Model;
  before(async () => {
    model = await Model.load(modelDir('qwen3-qknorm'));
  });
  after(() => model.dispose());

  it('reuses unchanged answers and regenerates the rest from where they diverge, giving what decoding from scratch gives', async () => {
    const prompts = PROMPTS.map((p) => model.encodeChat({ messages: [{ role: 'user', content: p }], addGenerationPrompt: true }).ids);
    const o = { maxTokens: 12 };
    const base = await greedyAnswers(model, null, prompts, o);
    const same = await greedyAnswersLike(model, null, prompts, base.ids, o);
    assert.deepEqual(same.ids, base.ids);
    assert.equal(same.generated, 0, 'the base model diffed against itself decodes nothing');
    for (const scale of [0.02, 0.3]) {
      const adapter = await perturbed(model, scale, 7);
      const scratch = await greedyAnswers(model, adapter, prompts, o);
      const diffed = await greedyAnswersLike(model, adapter, prompts, base.ids, o);
      assert.deepEqual(diffed.ids, scratch.ids, `scale ${scale}`);
      const changed = scratch.ids.filter((ids, i) => JSON.stringify(ids) !== JSON.stringify(base.ids[i])).length;
      assert.equal(diffed.generated, changed, `scale ${scale}: only the changed answers are decoded`);
      if (scale === 0.3) assert.ok(changed > 0, 'a large perturbation changes some answers');
      adapter.dispose();
    }
  });

  it('the model with the adapter merged into its weights (how a check decodes) is the policy with the adapter', async () => {
    const prompts = PROMPTS.map((p) => model.encodeChat({ messages: [{ role: 'user', content: p }], addGenerationPrompt: true }).ids);
    const adapter = await perturbed(model, 0.3, 11);
    const merged = await model.withMergedAdapter(adapter);
    try {
      const [withAdapter, folded] = [
        await scoreResponses(model.lm, [{ promptIds: prompts[0], responseIds: prompts[1] }], { adapter }),
        await scoreResponses(merged.lm, [{ promptIds: prompts[0], responseIds: prompts[1] }]),
      ];
      const unadapted = await scoreResponses(model.lm, [{ promptIds: prompts[0], responseIds: prompts[1] }]);
      const gap = (x: Float32Array, y: Float32Array) => Math.max(...x.map((v, i) => Math.abs(v - y[i])));
      assert.ok(
        gap(withAdapter[0].logprobs, folded[0].logprobs) < 1e-4,
        `merged log-probs differ by ${gap(withAdapter[0].logprobs, folded[0].logprobs)}`,
      );
      assert.ok(gap(withAdapter[0].logprobs, unadapted[0].logprobs) > 1e-3, 'the adapter changes the model');
      const o = { maxTokens: 12 };
      assert.deepEqual((await greedyAnswers(merged, null, prompts, o)).ids, (await greedyAnswers(model, adapter, prompts, o)).ids);
      // The model itself is untouched: a second merge starts from its own weights again.
      const again = await model.withMergedAdapter(adapter);
      assert.deepEqual(
        (await scoreResponses(again.lm, [{ promptIds: prompts[0], responseIds: prompts[1] }]))[0].logprobs,
        folded[0].logprobs,
      );
      again.dispose();
    } finally {
      merged.dispose();
      adapter.dispose();
    }
  });
});

/**
 * A model folder whose competence set is the base model's own greedy answers: the base scores
 * 100 %, and any checkpoint that changes an answer scores less.
 */
async function folderWithOwnAnswers(families?: string[]): Promise<string> {
  const dir = longContextModel('qwen3-qknorm', 256);
  const model = await Model.load(dir);
  const prompts = PROMPTS.map((p) => model.encodeChat({ messages: [{ role: 'user', content: p }], addGenerationPrompt: true }).ids);
  const g = await greedyAnswers(model, null, prompts, { maxTokens: MAX_TOKENS });
  writeCompetenceSet(
    dir,
    g.ids.map((ids) => answerText(model, ids)),
    families,
  );
  model.dispose();
  return dir;
}

/** A competence set of PROMPTS whose right answers are exactly `answers` (and whose families are `families`). */
function writeCompetenceSet(dir: string, answers: string[], families?: string[]): void {
  const lines = PROMPTS.map((prompt, i) => {
    const pattern = `^${answers[i].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
    return JSON.stringify({ prompt, check: { type: 'regex', pattern }, ...(families ? { family: families[i] } : {}) });
  });
  fs.writeFileSync(path.join(dir, COMPETENCE_FILE), lines.join('\n') + '\n');
}

describe('competence gate: confirming the reference', () => {
  it("checked on the whole set, it is the floor raised by its policy's gain there, not by its luck on the sample", async () => {
    const dir = longContextModel('qwen3-qknorm', 256);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-ref-'));
    const m = await Model.load(dir);
    const adapter = await perturbed(m, 0.3, 5);
    try {
      const prompts = PROMPTS.map((p) => m.encodeChat({ messages: [{ role: 'user', content: p }], addGenerationPrompt: true }).ids);
      const text = async (a: LoraAdapter | null) =>
        (await greedyAnswers(m, a, prompts, { maxTokens: MAX_TOKENS })).ids.map((ids) => answerText(m, ids));
      const [baseText, candText] = [await text(null), await text(adapter)];
      // The sample's three prompts expect the candidate's answers; the other three, the base model's.
      writeCompetenceSet(dir, baseText);
      const sampled = new Set(competenceSample(loadCompetenceSet(dir)!, 3).map((it) => it.messages[0].content));
      const right = PROMPTS.map((p, i) => (sampled.has(p) ? candText : baseText)[i]);
      writeCompetenceSet(dir, right);
      const correct = (xs: string[]) => xs.filter((x, i) => x === right[i]).length / xs.length;
      await adapter.save(checkpointDir(dataDir, 'step-000001'));

      const gate = CompetenceGate.load(dir);
      const c = { ...DEFAULT_TRAINING_CONFIG, competence_prompts: 3, competence_max_tokens: MAX_TOKENS };
      const baseOnSample = await gate.measure(m, null, c);
      const onSample = await gate.measure(m, adapter, c, { like: baseOnSample });
      assert.ok(onSample.accuracy > baseOnSample.accuracy, 'the perturbation changes answers on the sample, so the candidate rises there');
      // The candidate went live; the base model's answers are the ones the gate kept from when it was live.
      gate.setLive(c, null, baseOnSample);
      const risen = raisedReference(
        { key: gate.key(c), accuracy: baseOnSample.accuracy, source: 'base' },
        'step-000001',
        onSample.accuracy,
        false,
      );
      const logs: string[] = [];
      const ctx = { gate, config: c, model: m, opts: { dataDir }, log: (l: string) => logs.push(l) };
      const { reference, seconds } = await confirmReference(ctx as unknown as TrainerContext, risen);

      const gain = Math.min(correct(candText) - correct(baseText), onSample.accuracy - baseOnSample.accuracy);
      assert.ok(
        Math.abs(reference.accuracy - (gain > 0 ? baseOnSample.accuracy + gain : baseOnSample.accuracy)) < 1e-12,
        JSON.stringify({ reference, gain }),
      );
      assert.equal(reference.source, gain > 0 ? 'step-000001' : 'base');
      assert.deepEqual([reference.floor, reference.checked], [undefined, true], 'confirmed');
      assert.ok(reference.accuracy < onSample.accuracy, 'the sample alone would have kept it higher');
      assert.ok(seconds > 0);
      assert.match(logs.join('\n'), /checked on all 6 prompts/);

      // A rise whose checkpoint is gone cannot be checked: it stands.
      const orphan = { ...risen, source: 'step-000009' };
      assert.equal((await confirmReference(ctx as unknown as TrainerContext, orphan)).reference, orphan);
      assert.match(logs.at(-1)!, /cannot be checked \(step-000009 could not be read: checkpoint step-000009 has no folder/);
    } finally {
      adapter.dispose();
      m.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('competence gate in the trainer', () => {
  let model: string;
  before(async () => {
    model = await folderWithOwnAnswers();
  });
  after(() => fs.rmSync(model, { recursive: true, force: true }));

  /** A trainer on `o.modelDir` (default: the folder without families), with its data in `o.dataDir` (default: a new folder). */
  async function start(margin: number, extra: TrainingConfigPatch = {}, o: { modelDir?: string; dataDir?: string } = {}) {
    const dir = o.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-gate-'));
    const db: Db = openDatabase(path.join(dir, 'clawloop.db'));
    const store = new LearnStore(db);
    const events: TrainerEvent[] = [];
    const trainer = await Trainer.start({
      modelDir: o.modelDir ?? model,
      dataDir: dir,
      store,
      // A large learning rate: one step changes the greedy answers of this tiny model.
      configPatch: {
        method: 'rl',
        batch_size: 2,
        kl_coef: 0,
        learning_rate: 0.2,
        competence_margin: margin,
        competence_prompts: PROMPTS.length,
        competence_max_tokens: MAX_TOKENS,
        feedback_wait_s: 0,
        ...extra,
      },
      emit: (e) => events.push(e),
    });
    void trainer.run();
    const stop = async () => {
      await trainer.stop();
      db.close();
    };
    const close = async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    };
    return { dir, db, store, events, trainer, stop, close };
  }

  /** Two rated turns, a step, and its checkpoint once the gate has decided on it. */
  async function step(t: Awaited<ReturnType<typeof start>>, n: number) {
    ratedTurn(t.store, -1, 'up');
    ratedTurn(t.store, -0.5, 'down');
    t.trainer.wake();
    await waitFor(() => (t.store.checkpoints().filter((c) => c.competence).length === n ? true : null), `verdict ${n}`);
    return t.store.checkpoints().sort((a, b) => a.step - b.step)[n - 1];
  }

  /** The log line of the first check's verdict. */
  function checkLine(t: Awaited<ReturnType<typeof start>>): Promise<string> {
    const isCheck = (e: TrainerEvent): e is Extract<TrainerEvent, { type: 'log' }> =>
      e.type === 'log' && /competence gate: step-\d+ answers/.test(e.line);
    return waitFor(() => t.events.find(isCheck)?.line ?? null, "the check's log line");
  }

  it('a checkpoint that loses accuracy is saved, held back with its score and reason, and stays out of the live lineage', async () => {
    const t = await start(0);
    try {
      const gate = t.trainer.status().competence_gate!;
      assert.equal(gate.on, true, gate.detail);
      const turns = [ratedTurn(t.store, -1, 'up'), ratedTurn(t.store, -0.5, 'down')];
      t.trainer.wake();
      const cp = await waitFor(() => t.store.checkpoints().find((c) => c.competence) ?? null, 'the verdict on step 1');
      assert.equal(cp.competence!.held_back, true, JSON.stringify(cp.competence));
      assert.ok(cp.competence!.accuracy < 1, `accuracy ${cp.competence!.accuracy}`);
      assert.equal(cp.competence!.n, PROMPTS.length);
      assert.match(cp.competence!.reason!, /^held back by the competence gate: .* below the best live policy \(100\.0 %, the base model\)/);
      const s = t.trainer.status();
      assert.equal(s.adapter_version, 0, 'the base model is still live');
      assert.equal(s.competence_gate!.held_back, 1);
      assert.equal(s.competence_gate!.reference_accuracy, 1);
      assert.equal(t.store.trainerState().liveCheckpointId, null);
      assert.ok(!t.events.some((e) => e.type === 'adapter'), 'no adapter was published');
      assert.equal(
        (await t.trainer.currentAdapter()).tensors,
        null,
        'training continues from the live policy (the base model), not the held-back adapter',
      );
      const checked = t.events.filter(
        (e) => e.type === 'event' && e.event.event === 'checkpoint.saved' && e.event.data.competence !== null,
      ) as Array<{ event: { data: { checkpoint_id: string; competence: unknown } } }>;
      assert.equal(checked.length, 1, 'one checkpoint.saved event carries the verdict');
      assert.equal(checked[0].event.data.checkpoint_id, cp.id);
      assert.deepEqual(checked[0].event.data.competence, {
        accuracy: cp.competence!.accuracy,
        n: PROMPTS.length,
        held_back: true,
        reason: cp.competence!.reason,
      });
      const app = new AppQueries(t.db);
      assert.equal(app.stepOutcome(cp.step).live, false, 'what the step learned is not served');
      assert.equal(app.stepOutcome(cp.step).heldBack, cp.competence!.reason, "a receipt says why: the gate's reason");
      for (const id of turns) assert.equal(t.store.samplesOfTurn(id)[0].status, 'trained');

      // The user can still make it live by hand.
      const r = await t.trainer.rollback(cp.id);
      assert.equal(r.checkpoint, cp.id);
      assert.deepEqual([app.stepOutcome(cp.step).live, app.stepOutcome(cp.step).heldBack], [true, null]);
      assert.ok(t.events.some((e) => e.type === 'adapter' && e.version === r.version && e.tensors !== null));
    } finally {
      await t.close();
    }
  });

  it("a measure on the whole set takes the policy's answers on the sample as they are and decodes only the rest", async () => {
    const m = await Model.load(model);
    const gate = CompetenceGate.load(model);
    const c = { ...DEFAULT_TRAINING_CONFIG, competence_prompts: 4, competence_max_tokens: MAX_TOKENS };
    const adapter = await perturbed(m, 0.3, 5);
    try {
      const base = await gate.measure(m, null, c, { whole: true });
      const onSample = await gate.measure(m, adapter, c, { like: { ...base, answers: base.answers.slice(0, 4) } });
      const scratch = await gate.measure(m, adapter, c, { whole: true });
      const reused = await gate.measure(m, adapter, c, { like: base, whole: true, known: onSample });
      assert.deepEqual(reused.answers, scratch.answers);
      assert.deepEqual([reused.accuracy, reused.n], [scratch.accuracy, PROMPTS.length]);
      assert.deepEqual(reused.answers.slice(0, 4), onSample.answers, "the sample is the whole set's first prompts");
      const changedAfterSample = scratch.answers.slice(4).filter((a, i) => a.join() !== base.answers[4 + i].join()).length;
      assert.equal(reused.generated, changedAfterSample, 'only the changed answers past the sample are decoded');
      // Were no answer on the sample changed, a measure that ignored `known` would decode the same ones.
      assert.ok(onSample.generated > 0, 'the perturbation changes answers on the sample, so the test can tell reuse from a fresh measure');
    } finally {
      adapter.dispose();
      m.dispose();
    }
  });

  describe('with task families', () => {
    let families: string[];
    let withFamilies: string;
    before(async () => {
      families = ['counting', 'counting', 'chat', 'sums', 'counting', 'chat'];
      withFamilies = await folderWithOwnAnswers(families);
    });
    after(() => fs.rmSync(withFamilies, { recursive: true, force: true }));

    it('a candidate within the overall margin is held back when one family falls past the family margin, and the reason names it', async () => {
      // The step of the first test, which loses answers against the base model: within a margin of 1, past a family margin of 0.
      const t = await start(1, { competence_family_margin: 0 }, { modelDir: withFamilies });
      try {
        assert.match(
          t.trainer.status().competence_gate!.detail,
          /or its accuracy on one task family more than 0\.0 points below the base model's$/,
        );
        const cp = await step(t, 1);
        assert.equal(cp.competence!.held_back, true, JSON.stringify(cp.competence));
        assert.match(
          cp.competence!.reason!,
          /^held back by the competence gate: \d+\.\d % on the [123] held-out (counting|chat|sums) prompts, \d+\.\d points below the base model \(100\.0 %\) and \d+\.\d below the live policy; the family margin is 0\.0 points$/,
        );
        // The log line says where the answers were lost: each family's right answers against the base model's.
        const family = '(counting|chat|sums) [0-3] of [1-3] \\(base [1-3]\\)';
        assert.match(await checkLine(t), new RegExp(`family margin is 0\\.0 points; by family: ${family}, ${family}, ${family}$`));
        assert.equal(t.store.trainerState().liveCheckpointId, null);
      } finally {
        await t.close();
      }
    });

    it('the same candidate goes live with families unchecked (null), as on a set without families', async () => {
      const t = await start(1, { competence_family_margin: null }, { modelDir: withFamilies });
      try {
        assert.doesNotMatch(t.trainer.status().competence_gate!.detail, /family/);
        const cp = await step(t, 1);
        assert.equal(cp.competence!.held_back, false, JSON.stringify(cp.competence));
        assert.ok(cp.competence!.accuracy < 1, 'it did lose answers');
        assert.match(await checkLine(t), /live as adapter version 1$/);
      } finally {
        await t.close();
      }
    });

    it("after a restart with an adapter live, the base model's answers are measured again for the family verdict", async () => {
      const first = await start(1, { competence_family_margin: 1 }, { modelDir: withFamilies });
      await step(first, 1);
      await first.stop();
      const t = await start(1, { competence_family_margin: 0 }, { modelDir: withFamilies, dataDir: first.dir });
      try {
        assert.notEqual(t.store.trainerState().liveCheckpointId, null, 'step 1 is live after the restart');
        const cp2 = await step(t, 2);
        const lines = t.events.filter((e) => e.type === 'log' && e.line.includes('the base model answers'));
        assert.equal(lines.length, 1, 'the base model was measured once, before the check');
        assert.equal(t.trainer.status().error, undefined, 'the check did not fail');
        if (cp2.competence!.held_back) assert.match(cp2.competence!.reason!, /held-out (counting|chat|sums) prompts/);
      } finally {
        await t.close();
      }
    });

    it('set after a restart with an adapter live, the family margin has the base model measured before the next check', async () => {
      const first = await start(1, { competence_family_margin: null }, { modelDir: withFamilies });
      await step(first, 1);
      await first.stop();
      const t = await start(1, { competence_family_margin: null }, { modelDir: withFamilies, dataDir: first.dir });
      try {
        await step(t, 2);
        const baseMeasured = () => t.events.filter((e) => e.type === 'log' && e.line.includes('the base model answers')).length;
        assert.equal(baseMeasured(), 0, 'families unchecked: the base model is not measured after the restart');
        await t.trainer.setConfig({ competence_family_margin: 0 });
        const cp3 = await step(t, 3);
        assert.equal(baseMeasured(), 1);
        assert.equal(t.trainer.status().error, undefined, 'the check did not fail');
        if (cp3.competence!.held_back) assert.match(cp3.competence!.reason!, /held-out (counting|chat|sums) prompts/);
      } finally {
        await t.close();
      }
    });
  });

  it('a checkpoint within the margin goes live under its reserved version, with its score', async () => {
    const t = await start(1);
    try {
      ratedTurn(t.store, -1, 'up');
      ratedTurn(t.store, -0.5, 'down');
      t.trainer.wake();
      const cp = await waitFor(() => t.store.checkpoints().find((c) => c.competence) ?? null, 'the verdict on step 1');
      assert.equal(cp.competence!.held_back, false);
      assert.equal(cp.competence!.reason, null);
      assert.equal(t.trainer.status().adapter_version, cp.adapterVersion);
      assert.equal(t.store.trainerState().liveCheckpointId, cp.id);
      assert.ok(t.events.some((e) => e.type === 'adapter' && e.version === cp.adapterVersion));
      assert.equal(new AppQueries(t.db).stepOutcome(cp.step).live, true);
    } finally {
      await t.close();
    }
  });
});
