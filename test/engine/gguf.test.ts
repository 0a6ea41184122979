import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getLlama, LlamaLogLevel, type Llama, type Token } from 'node-llama-cpp';
import { generateText } from '../../main/engine/generation/generate.js';
import { ggufFromModel, vocabFromTokenizerJson } from '../../main/engine/formats/ggufExport.js';
import { readGgufHeader, writeGguf } from '../../main/engine/formats/ggufFile.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { Rng } from '../../main/util/random.js';
import { modelDir, type FixtureModel } from '../helpers/paths.js';

async function exportModel(model: Model, name: FixtureModel, dir: string) {
  const tj = JSON.parse(fs.readFileSync(path.join(modelDir(name), 'tokenizer.json'), 'utf8'));
  const vocab = vocabFromTokenizerJson(tj, model.config.vocabSize, model.generation.eosTokenIds[0], 'qwen2');
  const gguf = await ggufFromModel(model.lm, vocab, name);
  const file = path.join(dir, `${name}.gguf`);
  writeGguf(file, gguf.metadata, gguf.tensors);
  return { file, ...gguf };
}

/** The first `n` greedy tokens llama.cpp decodes from a GGUF file after `prompt` (F32 KV cache, one thread). */
async function llamaGreedy(llama: Llama, file: string, prompt: number[], n: number): Promise<number[]> {
  const lm = await llama.loadModel({ modelPath: file });
  const ctx = await lm.createContext({
    contextSize: 64,
    threads: 1,
    experimentalKvCacheKeyType: 'F32',
    experimentalKvCacheValueType: 'F32',
  });
  const tokens: number[] = [];
  for await (const t of ctx.getSequence().evaluate(prompt as unknown as Token[], { temperature: 0 })) {
    tokens.push(t as unknown as number);
    if (tokens.length === n) break;
  }
  await ctx.dispose();
  await lm.dispose();
  return tokens;
}

describe('GGUF export', () => {
  let dir: string;
  let llama: Llama;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-gguf-'));
    llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error });
  });
  after(async () => {
    await llama.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes a GGUF v3 header that reads back (metadata, names, fastest-first dims)', async () => {
    const model = await Model.load(modelDir('qwen3-qknorm'));
    const { file } = await exportModel(model, 'qwen3-qknorm', dir);
    const h = readGgufHeader(file);
    assert.equal(h.metadata.get('general.architecture'), 'qwen3');
    assert.equal(h.metadata.get('qwen3.block_count'), 2);
    assert.equal(h.metadata.get('qwen3.attention.key_length'), 24);
    assert.equal((h.metadata.get('tokenizer.ggml.tokens') as string[]).length, 320);
    const q = h.tensors.find((t) => t.name === 'blk.0.attn_q.weight')!;
    assert.deepEqual(q.dims, [64, 96]); // HF [out=96, in=64]
    assert.ok(h.tensors.some((t) => t.name === 'blk.1.attn_k_norm.weight'));
    assert.ok(!h.tensors.some((t) => t.name === 'output.weight'), 'tied head: no output.weight');
    assert.ok(h.tensors.every((t) => t.offset % 32 === 0));
    model.dispose();
  });

  for (const name of ['qwen3-qknorm', 'qwen2-tied', 'llama-gqa'] as const) {
    it(`llama.cpp decodes ${name} exactly as ClawLoop does (greedy, 12 tokens)`, async () => {
      const model = await Model.load(modelDir(name));
      const { file, warnings } = await exportModel(model, name, dir);
      assert.deepEqual(warnings, []);
      const prompt = [5, 9, 200, 17, 33, 41, 7, 100, 250, 3];
      const ours = await generateText(model.lm, model.tokenizer, prompt, { temperature: 0, maxNewTokens: 12 });
      assert.deepEqual(await llamaGreedy(llama, file, prompt, 12), ours.tokens);
      model.dispose();
    });
  }

  it('a LoRA adapter merged into the export decodes in llama.cpp exactly as base + adapter does in ClawLoop', async () => {
    const model = await Model.load(modelDir('qwen3-qknorm'));
    // A trained-looking adapter: B is not zero, so the merge changes the weights.
    const init = LoraAdapter.create(model.config, { r: 4, alpha: 8 }, 3);
    const rng = new Rng(7);
    const tensors = new Map(
      [...(await init.toTensors())].map(([n, t]) => [n, n.includes('lora_B') ? t.data.map(() => (rng.uniform() - 0.5) * 0.4) : t.data]),
    );
    init.dispose();
    const adapter = LoraAdapter.fromTensors(
      model.config,
      {
        r: 4,
        alpha: 8,
        dropout: 0,
        targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
        useRslora: false,
      },
      tensors,
    );
    const tj = JSON.parse(fs.readFileSync(path.join(modelDir('qwen3-qknorm'), 'tokenizer.json'), 'utf8'));
    const vocab = vocabFromTokenizerJson(tj, model.config.vocabSize, model.generation.eosTokenIds[0], 'qwen2');
    const merged = await ggufFromModel(model.lm, vocab, 'merged', adapter);
    const file = path.join(dir, 'merged.gguf');
    writeGguf(file, merged.metadata, merged.tensors);
    const prompt = [5, 9, 200, 17, 33, 41, 7, 100, 250, 3];
    const base = await generateText(model.lm, model.tokenizer, prompt, { temperature: 0, maxNewTokens: 12 });
    const ours = await generateText(model.lm, model.tokenizer, prompt, { temperature: 0, maxNewTokens: 12, adapter });
    assert.notDeepEqual(ours.tokens, base.tokens, 'the adapter changes the output, so the check means something');
    assert.deepEqual(await llamaGreedy(llama, file, prompt, 12), ours.tokens);
    adapter.dispose();
    model.dispose();
  });

  it('warns that llama.cpp ignores a sliding window shorter than the context', async () => {
    const model = await Model.load(modelDir('mistral-swa'));
    const { warnings } = await exportModel(model, 'mistral-swa', dir);
    assert.match(warnings[0], /without a sliding window: outputs match only while the context is at most 6 tokens/);
    model.dispose();
  });
});
