import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { loadNativeAddon } from '../../main/engine/backends/nativeAddon.js';
import type { NativeBackend } from '../../main/engine/backends/native/nativeBackend.js';
import { HALF_GEMM } from '../../main/engine/backends/native/ndAddon.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { computeGradients, crossEntropyLoss } from '../../main/engine/training/train.js';
import { expected, tensor } from '../helpers/fixtures.js';
import { bf16RoundingModel, logitsModel, pytorchBf16Roundings, SBGEMM_ROUNDINGS } from '../helpers/modelTolerance.js';
import { assertClose, tolerance, type ErrorModel } from '../helpers/numeric.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';
import { BF16_SHARDED, modelDir } from '../helpers/paths.js';

/**
 * A BF16 Qwen3 checkpoint in three shards, as Hugging Face publishes them, against PyTorch: the
 * same weights computed in float32 (`logits`) and in bfloat16 as PyTorch runs a BF16 model
 * (`bf16_logits`, about 2 % apart here, as BF16 models are).
 */
const e = expected(BF16_SHARDED);
const [B, T] = [e.ids.length, e.ids[0].length];

function logitsOf(model: Model): Float32Array {
  return tf.tidy(() => model.lm.forward(tf.tensor2d(e.ids.flat(), [B, T], 'int32')).dataSync() as Float32Array);
}

/** Two bfloat16 paths compared: their roundings add up. */
function both(m: ErrorModel, other: ErrorModel): ErrorModel {
  return { ...m, chain: (m.chain ?? 1) + (other.chain ?? 1) };
}

/** The native backend's packed path needs AVX2 and FMA. */
function packedSkip(): string | false {
  const reason = nativeSkipReason();
  if (reason) return reason;
  return loadNativeAddon()!.nd.cpu().features.packedGemm ? false : 'requires an x86-64 CPU with AVX2 and FMA (the packed kernel)';
}

/** The native backend's sbgemm path needs an OpenBLAS that has it. */
function sbgemmSkip(): string | false {
  const reason = nativeSkipReason();
  if (reason) return reason;
  return loadNativeAddon()!.nd.cpu().features.blasSbgemm
    ? false
    : "requires an OpenBLAS with cblas_sbgemm (built with BUILD_BFLOAT16=1; Debian 12's has none)";
}

for (const backend of ['native', 'wasm'] as const) {
  describe(`a sharded BF16 checkpoint matches PyTorch (${backend})`, { skip: backend === 'native' && nativeSkipReason() }, () => {
    let model: Model;
    after(() => model?.dispose());

    it('loads from three shards; on native the matrices are memory-mapped, not copied', async () => {
      const before = backend === 'native' ? loadNativeAddon()!.nd.memory() : null;
      model = await Model.load(modelDir(BF16_SHARDED), { backend });
      assert.equal(tf.getBackend(), backend);
      if (!before) return;
      const now = (tf.backend() as NativeBackend).nd.memory();
      assert.equal(now.mappedFiles - before.mappedFiles, 3, 'each shard mapped once');
      // Only the vectors (norms) are read into native memory: a few KB of the 1 MB of weights.
      const weightBytes = [...model.lm.parameters().values()].reduce((a, v) => a + v.size * 2, 0);
      assert.ok(now.nativeBytes - before.nativeBytes < weightBytes / 50, `${now.nativeBytes - before.nativeBytes} bytes copied`);
    });

    it('float32 activations on BF16 weights: logits within float32 rounding of the float32 reference', () => {
      assertClose(logitsOf(model), tensor(e, 'logits'), tolerance(logitsModel(model.config, T)), 'logits');
    });

    it('and within bfloat16 rounding of PyTorch in bfloat16', () => {
      const r = pytorchBf16Roundings(model.config);
      assertClose(logitsOf(model), tensor(e, 'bf16_logits'), tolerance(bf16RoundingModel(model.config, r.perLayer, r.extra)), 'logits');
    });

    if (backend !== 'native') return;
    it('LoRA gradients through the frozen BF16 weights agree on the packed and widen paths', { skip: packedSkip() }, async () => {
      const nd = (tf.backend() as NativeBackend).nd;
      const before = nd.cpu().halfGemm;
      const ids = [Array.from({ length: 40 }, (_, t) => e.ids[0][t % T])]; // 40 rows: past the GEMV's few-row path
      const batch = { ids, mask: ids.map((s) => s.map((_, t) => (t > 0 ? 1 : 0))) };
      const adapter = LoraAdapter.create(model.config, { r: 4, alpha: 8 }, 7);
      tf.tidy(() => adapter.variables().forEach((v) => v.assign(tf.randomNormal(v.shape, 0, 0.05, 'float32', 3)))); // B is 0 at creation
      const grads = async (mode: 'packed' | 'widen') => {
        nd.setHalfGemm(HALF_GEMM[mode]);
        const r = await computeGradients(model.lm, batch, crossEntropyLoss, { adapter });
        const out = new Map([...r.grads].map(([k, g]) => [k, g.dataSync() as Float32Array]));
        r.grads.forEach((g) => g.dispose());
        return out;
      };
      try {
        const packed = await grads('packed');
        const widen = await grads('widen');
        assert.equal(packed.size, adapter.variables().size);
        const tol = tolerance(both(logitsModel(model.config, ids[0].length), logitsModel(model.config, ids[0].length)));
        for (const [k, g] of packed) assertClose(g, widen.get(k)!, tol, `gradient of ${k}, packed vs widen`);
      } finally {
        nd.setHalfGemm(HALF_GEMM[before]);
        adapter.dispose();
      }
    });

    it("OpenBLAS's BF16 GEMM (activations rounded to bfloat16) within bfloat16 rounding of both references", { skip: sbgemmSkip() }, () => {
      const nd = (tf.backend() as NativeBackend).nd;
      const wide = logitsOf(model);
      const before = nd.cpu().halfGemm;
      nd.setHalfGemm(HALF_GEMM.sbgemm);
      try {
        const sb = logitsOf(model);
        assert.notDeepEqual(sb, wide, 'the sbgemm path rounds activations, so its logits differ from the float32 path');
        const ours = bf16RoundingModel(model.config, SBGEMM_ROUNDINGS.perLayer, SBGEMM_ROUNDINGS.extra);
        assertClose(sb, tensor(e, 'logits'), tolerance(ours), 'sbgemm vs float32 reference');
        const r = pytorchBf16Roundings(model.config);
        assertClose(
          sb,
          tensor(e, 'bf16_logits'),
          tolerance(both(ours, bf16RoundingModel(model.config, r.perLayer, r.extra))),
          'sbgemm vs bf16',
        );
      } finally {
        nd.setHalfGemm(HALF_GEMM[before]);
      }
    });
  });
}
