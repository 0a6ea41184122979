import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { Model } from '../../main/engine/model/model.js';
import { expected, tensor } from '../helpers/fixtures.js';
import { gpuSkipReason } from '../helpers/gpuSkip.js';
import { onBoth, values } from '../helpers/gpuCompare.js';
import { logitsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { modelDir } from '../helpers/paths.js';

// Tensors larger than one binding (an embedding or LM head on a GPU that binds 128 MiB at once) are
// split into windows. CLAWLOOP_WEBGPU_MAX_BINDING_MB lowers the limit the kernels see, so small
// tensors take the same path here.

const t = (shape: number[], seed: number) => tf.tensor(values(shape.reduce((a, b) => a * b, 1), seed), shape);
const withLimit = async <T>(mb: number, f: () => Promise<T>): Promise<T> => {
  process.env.CLAWLOOP_WEBGPU_MAX_BINDING_MB = String(mb);
  try {
    return await f();
  } finally {
    delete process.env.CLAWLOOP_WEBGPU_MAX_BINDING_MB;
  }
};

describe('tensors larger than one binding', { skip: await gpuSkipReason() }, () => {
  it('matmul: plain (windows of K added up), few rows (GEMV), and a transposed B (windows of its rows)', async () => {
    const cases: Array<[number[], number[], boolean]> = [
      [[150, 90], [90, 300], false], // A 54 KB, B 108 KB, C 180 KB
      [[3, 200], [200, 301], false],
      [[40, 96], [500, 96], true], // B [N, K] 192 KB
    ];
    for (const [sa, sb, tb] of cases) {
      const r = await withLimit(0.05, () => onBoth(() => tf.matMul(t(sa, 1), t(sb, 2), false, tb)));
      const K = sa[1];
      assertClose(r.gpu[0], r.cpu[0], tolerance({ dtype: 'float32', length: K }), `matmul [${sa}]·[${sb}]${tb ? 'ᵀ' : ''}`, { scale: K });
    }
  });

  it('a transposed A that does not fit says what to do', async () => {
    await withLimit(0.05, async () => {
      const { initBackend } = await import('../../main/engine/backends/backend.js');
      await initBackend('webgpu');
      assert.throws(() => tf.matMul(t([300, 150], 3), t([300, 90], 4), true, false), /larger than this GPU binds at once .*smaller batches/);
    });
  });

  it('gathers rows of a matrix window by window', async () => {
    const ids = [0, 399, 7, 200, 133, 399, 1];
    const r = await withLimit(0.05, () => onBoth(() => tf.gather(t([400, 70], 5), tf.tensor1d(ids, 'int32'))));
    assert.deepEqual(r.gpu[0], r.cpu[0]);
  });
});

describe('a model whose embedding and head exceed one binding matches PyTorch', { skip: await gpuSkipReason() }, () => {
  let model: Model;
  const e = expected('qwen3-qknorm');
  before(async () => (model = await Model.load(modelDir('qwen3-qknorm'), { backend: 'webgpu' })));
  after(() => model?.dispose());

  it('logits with a 30 KiB binding limit', async () => {
    const embedBytes = model.config.vocabSize * model.config.hiddenSize * 4;
    assert.ok(embedBytes > 30 * 1024, `the embedding (${embedBytes} bytes) must exceed the limit`);
    const logits = await withLimit(30 / 1024, async () => tf.tidy(() => model.lm.forward(tf.tensor2d(e.ids.flat(), [2, 12], 'int32'))).data());
    assertClose(logits, tensor(e, 'logits'), tolerance(logitsModel(model.config, 12)), 'logits');
  });
});
