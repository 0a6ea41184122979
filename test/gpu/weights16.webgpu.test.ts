import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { readSafetensors } from '../../main/engine/formats/safetensors.js';
import { writeSafetensors } from '../../main/engine/formats/safetensorsWrite.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { PackedWeight, type WeightFormat } from '../../main/engine/model/packedWeight.js';
import { computeGradients, crossEntropyLoss } from '../../main/engine/training/train.js';
import { gpuSkipReason } from '../helpers/gpuSkip.js';
import { values } from '../helpers/gpuCompare.js';
import { gradientModel, logitsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { modelDir } from '../helpers/paths.js';

// 16-bit weights on the GPU: products with packed F16/BF16 weights equal float32 products with the
// same (rounded) values, and a BF16 checkpoint runs on the GPU as it does on the CPU.

const skip = await gpuSkipReason();

/** x·W (or x·Wᵀ) with W packed on the GPU, and the float32 product with W's rounded values on the CPU. */
async function both(format: WeightFormat, M: number, K: number, N: number, transposed: boolean) {
  await initBackend('webgpu');
  const w = PackedWeight.pack(values(K * N, 7, 0.5), K, N, format);
  const rounded = await w.toFloat32();
  const xData = values(M * (transposed ? N : K), 8);
  const x = tf.tensor2d(xData, [M, transposed ? N : K]);
  const gpu = await w.matmul(x, transposed).data();
  const dx = await tf.grad((a: tf.Tensor) => tf.sum(tf.square(w.matmul(a, transposed))))(x).data();
  w.dispose();
  await initBackend('cpu');
  const xc = tf.tensor2d(xData, [M, transposed ? N : K]);
  const wc = tf.tensor2d(rounded, [K, N]);
  const cpu = await tf.matMul(xc, wc, false, transposed).data();
  const dxc = await tf.grad((a: tf.Tensor) => tf.sum(tf.square(tf.matMul(a, wc, false, transposed))))(xc).data();
  return { gpu, cpu, dx, dxc };
}

describe('16-bit packed weights on the GPU', { skip }, () => {
  for (const format of ['f16', 'bf16'] as const) {
    for (const [M, K, N, transposed] of [
      [3, 40, 33, false], // GEMV, odd columns (a padded half word)
      [70, 40, 33, false], // tiled
      [20, 40, 33, true], // the backward direction x·Wᵀ
    ] as const) {
      it(`${format}: [${M}, ${transposed ? N : K}]·W${transposed ? 'ᵀ' : ''} with W [${K}, ${N}], and its gradient`, async () => {
        const r = await both(format, M, K, N, transposed);
        const inner = transposed ? N : K;
        assertClose(r.gpu, r.cpu, tolerance({ dtype: 'float32', length: inner }), 'product', { scale: inner });
        assertClose(r.dx, r.dxc, tolerance({ dtype: 'float32', length: K + N, chain: 2 }), 'd/dx', { scale: K * N });
      });
    }
  }
});

describe('a BF16 checkpoint keeps 16-bit projections on the GPU and matches the CPU', { skip }, () => {
  let dir = '';
  let gpu: Model;
  let cpu: Model;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-bf16-'));
    const src = modelDir('qwen3-qknorm');
    for (const f of fs.readdirSync(src)) if (!f.endsWith('.safetensors') && fs.statSync(path.join(src, f)).isFile()) fs.copyFileSync(path.join(src, f), path.join(dir, f));
    const { tensors } = readSafetensors(path.join(src, 'model.safetensors'));
    writeSafetensors(path.join(dir, 'model.safetensors'), [...tensors].map(([name, t]) => ({ name, shape: t.shape, data: t.data, dtype: 'BF16' as const })));
    cpu = await Model.load(dir, { backend: 'cpu' });
    gpu = await Model.load(dir, { backend: 'webgpu' });
  });
  after(() => {
    gpu?.dispose();
    cpu?.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('every projection weight is packed, and exports back to the checkpoint values', async () => {
    const packed = gpu.lm.packedWeights();
    assert.equal(packed.size, gpu.config.numLayers * 7);
    const cpuOut = new Map((await cpu.lm.exportTensors()).map((t) => [t.name, t]));
    for (const t of await gpu.lm.exportTensors()) assert.deepEqual(t.data, cpuOut.get(t.name)!.data, t.name);
    assert.throws(() => gpu.lm.setTrainable(true), /CLAWLOOP_GPU_WEIGHTS=f32/);
  });

  it('logits and LoRA gradients match the CPU backend', async () => {
    const ids = [[5, 9, 200, 17, 33, 41, 7, 100]];
    const run = async (m: Model, backend: 'cpu' | 'webgpu') => {
      await initBackend(backend);
      const logits = await tf.tidy(() => m.lm.forward(tf.tensor2d(ids.flat(), [1, 8], 'int32'))).data();
      const adapter = LoraAdapter.create(m.config, { r: 4 }, 3);
      for (const v of adapter.variables().values()) v.assign(tf.add(v, 0.01));
      const g = await computeGradients(m.lm, { ids, mask: [ids[0].map((_, t) => (t > 0 ? 1 : 0))] }, crossEntropyLoss, { adapter });
      const grads = await Promise.all([...g.grads.values()].map((t) => t.data()));
      g.grads.forEach((t) => t.dispose());
      adapter.dispose();
      return { logits, grads };
    };
    const a = await run(gpu, 'webgpu');
    const b = await run(cpu, 'cpu');
    assertClose(a.logits, b.logits, tolerance(logitsModel(gpu.config, 8)), 'logits');
    const tol = tolerance(gradientModel(gpu.config, 8, 8, { loraRank: 4 }));
    a.grads.forEach((g, i) => assertClose(g, b.grads[i], tol, `LoRA gradient ${i}`));
  });
});
