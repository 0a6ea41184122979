import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { Model } from '../../main/engine/model/model.js';
import { readSafetensors } from '../../main/engine/formats/safetensors.js';
import { writeSafetensors } from '../../main/engine/formats/safetensorsWrite.js';
import { scoreResponses } from '../../main/engine/generation/score.js';
import { logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { modelDir } from '../helpers/paths.js';

function copyModel(name: Parameters<typeof modelDir>[0]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-model-'));
  for (const f of fs.readdirSync(modelDir(name))) {
    const p = path.join(modelDir(name), f);
    if (fs.statSync(p).isFile()) fs.copyFileSync(p, path.join(dir, f));
  }
  return dir;
}

describe('model folders', () => {
  it('reports every missing, extra and misshapen tensor by name', async () => {
    const dir = copyModel('qwen2-tied');
    const file = path.join(dir, 'model.safetensors');
    const { tensors } = readSafetensors(file);
    tensors.delete('model.layers.1.mlp.up_proj.weight');
    tensors.set('model.layers.0.self_attn.q_proj.bias', { shape: [7], data: new Float32Array(7) });
    tensors.set('model.layers.0.self_attn.extra_thing.weight', { shape: [2], data: new Float32Array(2) });
    writeSafetensors(
      file,
      [...tensors].map(([name, t]) => ({ name, ...t })),
    );
    await assert.rejects(Model.load(dir), (err: Error) => {
      assert.match(err.message, /missing 'model\.layers\.1\.mlp\.up_proj\.weight' \[96,48\]/);
      assert.match(err.message, /'model\.layers\.0\.self_attn\.q_proj\.bias' in \S+\.safetensors has shape \[7\]; expected \[48\]/);
      assert.match(err.message, /unexpected tensor 'model\.layers\.0\.self_attn\.extra_thing\.weight'/);
      return true;
    });
    fs.rmSync(dir, { recursive: true });
  });

  it('ignores rotary buffers and a redundant lm_head of a tied model, and says so', async () => {
    const dir = copyModel('qwen2-tied');
    const file = path.join(dir, 'model.safetensors');
    const { tensors } = readSafetensors(file);
    tensors.set('model.layers.0.self_attn.rotary_emb.inv_freq', { shape: [6], data: new Float32Array(6) });
    tensors.set('lm_head.weight', tensors.get('model.embed_tokens.weight')!);
    writeSafetensors(
      file,
      [...tensors].map(([name, t]) => ({ name, ...t })),
    );
    const lines: string[] = [];
    const m = await Model.load(dir, { log: (l) => lines.push(l) });
    assert.ok(
      lines.some((l) => /ignoring 2 tensor\(s\)/.test(l)),
      lines.join('\n'),
    );
    m.dispose();
    fs.rmSync(dir, { recursive: true });
  });

  it('takes stop ids from generation_config.json, config.json and the tokenizer', async () => {
    const m = await Model.load(modelDir('llama-gqa'));
    const imEnd = m.tokenizer.tokenToId('<|im_end|>')!;
    const eot = m.tokenizer.tokenToId('<|endoftext|>')!;
    assert.deepEqual([...m.generation.eosTokenIds].sort(), [eot, imEnd].sort());
    assert.equal(m.name, 'llama-gqa');
    const { text, ids } = m.encodeChat({ messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(text, '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n');
    assert.equal(ids[0], m.tokenizer.tokenToId('<|im_start|>'));
    m.dispose();
  });

  it('explains a folder that is not a model', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-empty-'));
    await assert.rejects(Model.load(dir), /config\.json is missing; is '.*' a Hugging Face model folder\?/);
    fs.writeFileSync(path.join(dir, 'config.json'), '{ not json');
    await assert.rejects(Model.load(dir), /config\.json: not valid JSON/);
    fs.rmSync(dir, { recursive: true });
  });

  it('top-k scoring lists the most likely tokens of each position', async () => {
    const m = await Model.load(modelDir('mistral-swa'));
    const promptIds = [5, 9, 200, 17];
    const responseIds = [33, 41, 7];
    const [r] = await scoreResponses(m.lm, [{ promptIds, responseIds }], { topK: 4 });
    const all = tf.tidy(
      () =>
        tf.logSoftmax(m.lm.forward(tf.tensor2d([...promptIds, ...responseIds.slice(0, -1)], [1, 6], 'int32'))).arraySync() as number[][][],
    );
    responseIds.forEach((_, j) => {
      const row = all[0][promptIds.length - 1 + j];
      const best = row
        .map((v, id) => ({ id, v }))
        .sort((a, b) => b.v - a.v)
        .slice(0, 4);
      assert.deepEqual(
        r.top![j].map((t) => t.id),
        best.map((b) => b.id),
      );
      // Scoring gathers the rows it needs before the LM head; this reference runs the head on all.
      assertClose(
        r.top![j].map((t) => t.logprob),
        best.map((b) => b.v),
        tolerance(logprobsModel(m.config, 6)),
        `top log-probs of token ${j}`,
        { scale: Math.max(...row.map(Math.abs)) },
      );
    });
    m.dispose();
  });
});
