import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { expectedWeights, parameterCount, parseModelConfig } from '../../main/engine/model/config.js';
import { halfPrecisionHeader } from '../../main/engine/formats/safetensorsWrite.js';
import { QWEN3_1_7B } from '../../scripts/bench/largeModel.js';
import { Model } from '../../main/engine/model/model.js';
import { Rng } from '../../main/util/random.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { modelDir } from '../helpers/paths.js';

/**
 * A model larger than the 4 GB WebAssembly heap can hold in float32 (1.1 B parameters: 4.4 GB as
 * float32, 2.2 GB as BF16) loads and runs on the native backend. Its checkpoint is a sparse file:
 * the projections are holes (zeros, costing no disk and no time to write), the norms are 1 and a
 * few embedding rows are random, so the logits have a closed form: with every block adding zero,
 * the last position's hidden state is the RMS-normalised embedding of its token, and the tied head
 * gives logit(v) = rmsnorm(E[t]) · E[v], zero for the embedding rows left as holes.
 */
// Qwen3-1.7B's shapes with 16 of its 28 layers (1.1B parameters, 4.4 GB as float32) and a shorter context.
const CONFIG = { ...QWEN3_1_7B, num_hidden_layers: 16, max_position_embeddings: 4096 };
const ROWS = [5, 17, 300, 151935]; // embedding rows with values (token ids 5, 17 and 300 are the input)

const bf16 = (x: number) => new Uint32Array(Float32Array.of(x).buffer)[0] >>> 16;
const fromBf16 = (h: number) => new Float32Array(Uint32Array.of(h << 16).buffer)[0];

/** Writes the sparse checkpoint; returns the embedding rows it filled, as the float32 values stored. */
function writeSparse(dir: string): Map<number, Float32Array> {
  const shapes = expectedWeights(parseModelConfig(CONFIG));
  const { prefix, offsets, bytes } = halfPrecisionHeader(shapes, 'BF16');
  const file = path.join(dir, 'model.safetensors');
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, prefix, 0, prefix.byteLength, 0);
  fs.ftruncateSync(fd, bytes); // everything else is a hole: zeros
  const at = (name: string) => offsets.get(name)!;
  for (const [name, shape] of shapes) {
    if (name.endsWith('norm.weight')) fs.writeSync(fd, new Uint16Array(shape[0]).fill(bf16(1)), 0, 2 * shape[0], at(name));
  }
  const rng = new Rng(7);
  const rows = new Map<number, Float32Array>();
  for (const r of ROWS) {
    const bits = Uint16Array.from({ length: CONFIG.hidden_size }, () => bf16(rng.normal() * 0.05));
    fs.writeSync(fd, bits, 0, bits.byteLength, at('model.embed_tokens.weight') + r * CONFIG.hidden_size * 2);
    rows.set(r, Float32Array.from(bits, fromBf16));
  }
  fs.closeSync(fd);
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) fs.copyFileSync(path.join(modelDir('qwen3-qknorm'), f), path.join(dir, f));
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(CONFIG));
  return rows;
}

describe('a model larger than 4 GB in float32 runs on the native backend', { skip: nativeSkipReason() }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-large-'));
  let model: Model | undefined;
  after(() => {
    model?.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('loads memory-mapped, and its logits have the closed form of its weights', async () => {
    const params = parameterCount(parseModelConfig(CONFIG));
    assert.ok(params * 4 > 2 ** 32, `${params} parameters: more than 4 GiB as float32`);
    const rows = writeSparse(dir);
    model = await Model.load(dir, { backend: 'native' });
    const ids = [5, 17, 300];
    const logits = tf.tidy(() => model!.lm.forward(tf.tensor2d(ids, [1, 3], 'int32'), { lastOnly: true }).dataSync());
    assert.equal(logits.length, CONFIG.vocab_size);
    const e = rows.get(300)!;
    const rms = Math.sqrt(e.reduce((a, x) => a + x * x, 0) / e.length + CONFIG.rms_norm_eps);
    const h = Float64Array.from(e, (x) => x / rms);
    const want = new Float32Array(CONFIG.vocab_size);
    for (const [r, row] of rows) want[r] = row.reduce((a, x, i) => a + x * h[i], 0);
    // Two chained reductions over the hidden size (the norm, the head), from float32 inputs.
    assertClose(logits, want, tolerance({ dtype: 'float32', length: CONFIG.hidden_size, chain: 2 }), 'logits');
    assert.ok(Math.abs(want[300]) > 1, 'the token scores its own embedding highly');
  });
});
