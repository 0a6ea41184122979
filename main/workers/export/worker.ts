/**
 * A short-lived worker thread that writes a checkpoint as one GGUF file: it loads the base model,
 * merges the checkpoint's LoRA adapter into its weights and writes `model.gguf` (F32) into the
 * folder it is given, then exits. The merge is model math, so it never runs on the HTTP thread.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { ggufFromModel, LoraAdapter, Model, vocabFromTokenizerJson, writeGguf } from '../../engine/index.js';
import type { ExportWorkerData, FromExportWorker } from './messages.js';

if (!parentPort) throw new Error('main/workers/export/worker.js must run as a worker thread');
const port = parentPort;
const data = workerData as ExportWorkerData;

/** llama.cpp's name for the tokenizer's pre-tokenization rules. */
const PRE_TOKENIZER: Record<string, string> = { qwen2: 'qwen2', qwen3: 'qwen2', llama: 'llama-bpe', mistral: 'default' };

async function run(): Promise<FromExportWorker> {
  const model = await Model.load(data.modelDir, { backend: 'wasm' });
  const adapter = LoraAdapter.load(data.checkpointDir, model.config);
  try {
    const tokenizerJson = JSON.parse(fs.readFileSync(path.join(data.modelDir, 'tokenizer.json'), 'utf8'));
    const vocab = vocabFromTokenizerJson(
      tokenizerJson,
      model.config.vocabSize,
      model.generation.eosTokenIds[0],
      PRE_TOKENIZER[model.config.architecture] ?? 'default',
    );
    const gguf = await ggufFromModel(model.lm, vocab, data.name, adapter);
    writeGguf(path.join(data.dir, 'model.gguf'), gguf.metadata, gguf.tensors);
    return { type: 'done', files: ['model.gguf'], warnings: gguf.warnings };
  } finally {
    adapter.dispose();
    model.dispose();
  }
}

port.postMessage(await run().catch((err: Error): FromExportWorker => ({ type: 'fatal', message: err.message })));
