import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LoraAdapter, LoraError } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { scoreResponses } from '../../main/engine/generation/score.js';
import { expected, tensor } from '../helpers/fixtures.js';
import { logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { FIXTURE_MODELS, modelDir } from '../helpers/paths.js';

async function logprobs(model: Model, ids: number[][], adapter: LoraAdapter | null): Promise<number[]> {
  const items = ids.map((seq) => ({ promptIds: seq.slice(0, 1), responseIds: seq.slice(1) }));
  return (await scoreResponses(model.lm, items, { adapter })).flatMap((r) => [...r.logprobs]);
}

for (const name of FIXTURE_MODELS) {
  describe(`LoRA: ${name}`, () => {
    let model: Model;
    const e = expected(name);
    before(async () => (model = await Model.load(modelDir(name))));
    after(() => model.dispose());

    it('a PEFT adapter written by the PyTorch reference gives its log-probs (derived tolerance)', async () => {
      const adapter = LoraAdapter.load(path.join(modelDir(name), 'adapter'), model.config);
      assert.deepEqual(adapter.config.targets, e.lora.targets);
      assert.equal(adapter.scale, e.lora.alpha / e.lora.r);
      assertClose(
        await logprobs(model, e.ids, adapter),
        tensor(e, 'lora_logprobs'),
        tolerance(logprobsModel(model.config, 12, { loraRank: e.lora.r })),
        'LoRA log-probs',
      );
      adapter.dispose();
    });

    it('switching the adapter off gives the base model back', async () => {
      const adapter = LoraAdapter.load(path.join(modelDir(name), 'adapter'), model.config);
      await logprobs(model, e.ids, adapter);
      assertClose(
        await logprobs(model, e.ids, null),
        tensor(e, 'logprobs'),
        tolerance(logprobsModel(model.config, 12)),
        'base log-probs after LoRA',
      );
      adapter.dispose();
    });

    it('a new adapter (PEFT init: B = 0) leaves outputs unchanged', async () => {
      const adapter = LoraAdapter.create(model.config, { r: 4, alpha: 8 }, 1);
      const base = await logprobs(model, e.ids, null);
      assert.deepEqual(await logprobs(model, e.ids, adapter), base);
      adapter.dispose();
    });

    it('save then load gives identical log-probs and PEFT file names', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-lora-'));
      const a = LoraAdapter.load(path.join(modelDir(name), 'adapter'), model.config);
      await a.save(dir, { baseModel: name });
      const b = LoraAdapter.load(dir, model.config);
      assert.deepEqual(await logprobs(model, e.ids, b), await logprobs(model, e.ids, a));
      const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'adapter_config.json'), 'utf8'));
      assert.equal(cfg.peft_type, 'LORA');
      assert.equal(cfg.r, e.lora.r);
      assert.equal(cfg.lora_alpha, e.lora.alpha);
      assert.ok(a.variables().has('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight'));
      a.dispose();
      b.dispose();
      fs.rmSync(dir, { recursive: true });
    });
  });
}

describe('LoRA configuration and errors', () => {
  let model: Model;
  before(async () => (model = await Model.load(modelDir('llama-gqa'))));
  after(() => model.dispose());

  it('targets, rank and rsLoRA scaling are honoured', () => {
    const a = LoraAdapter.create(model.config, { r: 2, alpha: 4, targets: ['q_proj', 'down_proj'], useRslora: true });
    assert.equal(a.scale, 4 / Math.sqrt(2));
    assert.equal(a.variables().size, 2 * 2 * model.config.numLayers);
    assert.ok(a.get(0, 'q_proj') && !a.get(0, 'k_proj'));
    assert.deepEqual(a.get(1, 'down_proj')!.a.shape, [model.config.intermediateSize, 2]);
    a.dispose();
  });

  it('PEFT initialisation: A uniform in ±1/√in, B zero', () => {
    const a = LoraAdapter.create(model.config, { r: 8 }, 3);
    const pair = a.get(0, 'q_proj')!;
    const bound = 1 / Math.sqrt(model.config.hiddenSize);
    const av = pair.a.dataSync();
    assert.ok(av.every((x) => Math.abs(x) <= bound));
    assert.ok(Math.max(...av) > bound * 0.8, 'A spans its range');
    assert.ok(pair.b.dataSync().every((x) => x === 0));
    a.dispose();
  });

  it('bad configurations and folders give actionable errors', () => {
    assert.throws(() => LoraAdapter.create(model.config, { r: 0 }), /positive integer/);
    assert.throws(() => LoraAdapter.create(model.config, { targets: ['lm_head' as never] }), /valid: q_proj/);
    assert.throws(() => LoraAdapter.create(model.config, { dropout: 1 }), /dropout/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-lora-'));
    assert.throws(() => LoraAdapter.load(dir, model.config), /no adapter_config\.json/);
    fs.writeFileSync(path.join(dir, 'adapter_config.json'), JSON.stringify({ peft_type: 'LORA', r: 4, lora_alpha: 8, use_dora: true }));
    assert.throws(() => LoraAdapter.load(dir, model.config), LoraError);
    fs.rmSync(dir, { recursive: true });
  });

  it('an adapter for another model shape is refused by name and shape', async () => {
    const other = await Model.load(modelDir('qwen2-tied'));
    assert.throws(() => LoraAdapter.load(path.join(modelDir('qwen2-tied'), 'adapter'), model.config), /expected shape/);
    other.dispose();
  });
});
