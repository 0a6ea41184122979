import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { generateText } from '../../main/engine/generation/generate.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { loadNativeAddon, nativeLoadError } from '../../main/engine/backends/nativeAddon.js';
import { broadcastPlan } from '../../main/engine/backends/broadcastPlan.js';
import { registerNativeWasmKernels, unregisterNativeWasmKernels } from '../../main/engine/backends/wasmKernels.js';
import { Rng } from '../../main/util/random.js';
import { computeGradients, crossEntropyLoss } from '../../main/engine/training/train.js';
import { gradientModel, logitsModel, logprobsModel, lossModel } from '../helpers/modelTolerance.js';
import { assertClose, assertScalarClose, tolerance, UNIT_ROUNDOFF } from '../helpers/numeric.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';
import { addonInfoInProcess, workersLoadingTheAddon } from '../helpers/nativeWorkers.js';
import { modelDir } from '../helpers/paths.js';

const SKIP = nativeSkipReason();

/** Runs f with the native kernels, then with tfjs's own, and returns both results. */
function bothWays<T>(f: () => T): { native: T; pure: T } {
  const addon = loadNativeAddon()!;
  registerNativeWasmKernels(addon);
  const native = f();
  unregisterNativeWasmKernels();
  const pure = f();
  registerNativeWasmKernels(addon);
  return { native, pure };
}

async function bothWaysAsync<T>(f: () => Promise<T>): Promise<{ native: T; pure: T }> {
  const addon = loadNativeAddon()!;
  registerNativeWasmKernels(addon);
  const native = await f();
  unregisterNativeWasmKernels();
  const pure = await f();
  registerNativeWasmKernels(addon);
  return { native, pure };
}

/** The sums the reduction test compares: [tensor, axes, keepDims]. */
const SUMS = (x: tf.Tensor, big: tf.Tensor): Array<[tf.Tensor, number | number[], boolean]> => [
  [x, 0, false],
  [x, -1, true],
  [x, [0, 1, 2], false],
  [x, [1, 2], true],
  [x, [0, 2], false], // not adjacent: tfjs's kernel
  [big, 0, false],
  [big, 1, false],
];

function randomTensor(shape: number[], seed: number): tf.Tensor {
  const rng = new Rng(seed);
  return tf.tensor(
    Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    shape,
  );
}

describe('native kernels', { skip: SKIP }, () => {
  before(async () => {
    // Built but not loadable (e.g. built from older sources): one clear failure, not a TypeError per test.
    assert.ok(loadNativeAddon(), `the native addon is built but does not load: ${nativeLoadError()}. Rebuild it: npm run build:native`);
    await initBackend('wasm');
  });

  it('a process started with CLAWLOOP_THREADS=1 runs BLAS and the kernels on 1 thread', async () => {
    const info = await addonInfoInProcess({ CLAWLOOP_THREADS: '1' });
    assert.deepEqual([info.threads, info.blasThreads], [1, 1]);
  });

  it('the first worker to load the engine sets the thread count; a second worker cannot reset it', async () => {
    // A fresh process whose main thread never loads the addon, so its first worker is the first loader.
    const r = await workersLoadingTheAddon(['1', '2']);
    assert.deepEqual(r.loaded[0], { threads: 1, blasThreads: 1 }, 'the first loader sets the count');
    assert.deepEqual(r.loaded[1], { threads: 1, blasThreads: 1 }, 'the second loader finds it set and keeps it');
    assert.deepEqual(r.firstAfterwards, { threads: 1, blasThreads: 1 }, "the first worker's setting survived the second load");
  });

  it('BatchMatMul equals tfjs-wasm for plain, transposed, batched and broadcast products', () => {
    const cases: Array<[number[], number[], boolean, boolean]> = [
      [[5, 7], [7, 3], false, false],
      [[7, 5], [7, 3], true, false],
      [[5, 7], [3, 7], false, true],
      [[7, 5], [3, 7], true, true],
      [[1, 7], [7, 9], false, false], // GEMV path
      [[1, 7], [9, 7], false, true],
      [[2, 3, 4, 6], [2, 3, 6, 5], false, false],
      [[4, 1, 6], [1, 6, 5], false, false], // broadcast b
      [[1, 4, 6], [3, 6, 5], false, false], // broadcast a
    ];
    cases.forEach(([sa, sb, ta, tb], i) => {
      const a = randomTensor(sa, i);
      const b = randomTensor(sb, 100 + i);
      const { native, pure } = bothWays(() => tf.tidy(() => tf.matMul(a, b, ta, tb).dataSync()));
      const k = ta ? sa[sa.length - 2] : sa[sa.length - 1];
      assertClose(native, pure, tolerance({ dtype: 'float32', length: k }), `case ${i}`);
      a.dispose();
      b.dispose();
    });
  });

  it('Tile and broadcastTo equal tfjs-wasm for float32 and int32', () => {
    const x = randomTensor([2, 3, 4], 7);
    const { native, pure } = bothWays(() =>
      tf.tidy(() => [
        ...tf.tile(x, [2, 1, 3]).dataSync(),
        ...tf.broadcastTo(tf.reshape(x, [1, 2, 3, 4]), [3, 2, 3, 4]).dataSync(),
        ...tf
          .tile(
            tf.tensor2d(
              [
                [1, 2],
                [3, 4],
              ],
              [2, 2],
              'int32',
            ),
            [3, 2],
          )
          .dataSync(),
      ]),
    );
    assert.deepEqual(native, pure);
    x.dispose();
  });

  it('Gather, Concat and SplitV equal tfjs-wasm on every axis, for float32 and int32', () => {
    const x = randomTensor([3, 4, 5], 11);
    const xi = tf.tensor3d(
      Array.from({ length: 60 }, (_, i) => i - 30),
      [3, 4, 5],
      'int32',
    );
    const { native, pure } = bothWays(() =>
      tf.tidy(() => {
        const out: number[] = [];
        for (const axis of [0, 1, 2, -1]) {
          const n = x.shape[axis < 0 ? axis + 3 : axis];
          const idx = tf.tensor1d([n - 1, 0, n - 1, 1 % n], 'int32');
          out.push(...tf.gather(x, idx, axis).dataSync(), ...tf.gather(xi, idx, axis).dataSync());
          out.push(...tf.concat([x, tf.mul(x, 2), x], axis).dataSync(), ...tf.concat([xi, xi], axis).dataSync());
          for (const part of tf.split(x, n === 5 ? [2, -1] : [1, n - 1], axis)) out.push(...part.dataSync());
          for (const part of tf.split(xi, 1, axis)) out.push(...part.dataSync());
        }
        out.push(
          ...tf
            .gather(
              x,
              tf.tensor2d(
                [
                  [2, 0],
                  [1, 1],
                ],
                [2, 2],
                'int32',
              ),
            )
            .dataSync(),
        ); // indices of rank 2
        return out;
      }),
    );
    assert.deepEqual(native, pure);
    assert.throws(() => tf.gather(x, tf.tensor1d([3], 'int32')), /outside \[0, 3\)|out of range|\[0, 2\]/);
    [x, xi].forEach((t) => t.dispose());
  });

  it('Exp and Sigmoid match tfjs-wasm within 8 ulps (and handle extremes)', () => {
    // No reduction here: each side's exp (Cephes' polynomial natively, XNNPACK's in wasm) is within
    // a few ulps of the exact value, and sigmoid adds two roundings; 8 ulps (2u each) covers both.
    const rtol = 8 * 2 * UNIT_ROUNDOFF.float32;
    const x = tf.concat([tf.mul(randomTensor([4000], 5), 10), tf.tensor1d([-1e9, -200, -87, 0, 1e-8, 88, 200])]);
    const { native, pure } = bothWays(() => tf.tidy(() => [tf.exp(x).dataSync(), tf.sigmoid(x).dataSync()]));
    for (let k = 0; k < 2; k++) {
      for (let i = 0; i < native[k].length; i++) {
        const [a, b] = [native[k][i], pure[k][i]];
        assert.ok(a === b || Math.abs(a - b) <= rtol * Math.abs(b) + 1e-37, `${k ? 'sigmoid' : 'exp'}(${x.dataSync()[i]}): ${a} vs ${b}`);
      }
    }
    x.dispose();
  });

  it('Add, Sub, Multiply and RealDiv equal tfjs-wasm for every broadcast pattern (others fall back)', () => {
    const cases: Array<[number[], number[]]> = [
      [[5, 7], [5, 7]],
      [[5, 7], []],
      [[], [5, 7]],
      [[5, 7], [7]],
      [[7], [5, 7]],
      [[5, 7], [5, 1]],
      [[5, 1], [5, 7]],
      [[2, 3, 4, 6], [4, 6]],
      [[2, 3, 4, 6], [1, 1, 4, 6]],
      [[2, 3, 4, 6], [2, 3, 4, 1]],
      [[2, 3, 4, 6], [2, 3, 1, 1]],
      [[2, 3, 4, 6], [3, 1, 1]], // a middle block: tfjs's kernel
      [[5, 1], [1, 7]], // both sides broadcast: tfjs's kernel
      [[40000], [40000]], // threaded
    ];
    const ops = [tf.add, tf.sub, tf.mul, tf.div] as const;
    cases.forEach(([sa, sb], i) => {
      const a = randomTensor(sa, 200 + i);
      const b = tf.tidy(() => tf.add(tf.abs(randomTensor(sb, 300 + i)), 0.5));
      const { native, pure } = bothWays(() => tf.tidy(() => ops.map((op) => [...op(a, b).shape, ...op(a, b).dataSync()])));
      assert.deepEqual(native, pure, `case ${i}: ${JSON.stringify(sa)} with ${JSON.stringify(sb)}`);
      a.dispose();
      b.dispose();
    });
    assert.equal(broadcastPlan([5, 1], [1, 7]), null);
    assert.deepEqual(broadcastPlan([2, 3, 4, 6], [4, 6]), { mode: 3, rows: 6, cols: 24, shape: [2, 3, 4, 6] });
    assert.deepEqual(broadcastPlan([2, 1], [2, 5]), { mode: 6, rows: 2, cols: 5, shape: [2, 5] });
  });

  it('Sum over adjacent axes, Softmax and the element-wise maps equal tfjs-wasm', () => {
    const x = randomTensor([3, 4, 5, 6], 21);
    const pos = tf.tidy(() => tf.add(tf.abs(x), 0.1));
    const big = randomTensor([300, 70], 22);
    const { native, pure } = bothWays(() =>
      tf.tidy(() => {
        const out: number[][] = [];
        for (const [t, axis, keep] of SUMS(x, big)) {
          const s = tf.sum(t, axis, keep);
          out.push([...s.shape, ...s.dataSync()]);
        }
        out.push([...tf.softmax(x).dataSync()], [...tf.softmax(big).dataSync()]);
        out.push([...tf.square(x).dataSync()], [...tf.neg(x).dataSync()], [...tf.sqrt(pos).dataSync()], [...tf.rsqrt(pos).dataSync()]);
        return out;
      }),
    );
    // Each result's error model: a sum reduces the product of its axes; softmax chains exp, a sum
    // over the row and a division; the element-wise maps round once or twice.
    const lengths = SUMS(x, big).map(([t, axis]) => [axis].flat().reduce((n, a) => n * t.shape[a < 0 ? a + t.rank : a], 1));
    const models = [
      ...lengths.map((length) => ({ length, chain: 1 })),
      { length: 6, chain: 3 },
      { length: 70, chain: 3 },
      ...[1, 1, 1, 2].map((chain) => ({ length: 1, chain })),
    ];
    native.forEach((n, i) => assertClose(n, pure[i], tolerance({ dtype: 'float32', ...models[i] }), `result ${i}`));
    [x, pos, big].forEach((t) => t.dispose());
  });

  describe('whole-model results agree with pure tfjs (tolerances from the model shape)', () => {
    let model: Model;
    before(async () => (model = await Model.load(modelDir('qwen3-qknorm'))));
    after(() => model.dispose());
    const ids = () => [model.tokenizer.encode('hello world! what is the answer?'), model.tokenizer.encode('the quick brown fox')];

    it('logits', () => {
      const seqs = ids();
      const { native, pure } = bothWays(() =>
        tf.tidy(() => model.lm.forward(tf.tensor2d(seqs[0], [1, seqs[0].length], 'int32')).dataSync()),
      );
      assertClose(native, pure, tolerance(logitsModel(model.config, seqs[0].length)), 'logits');
    });

    it('LoRA and full gradients', async () => {
      const seqs = ids();
      const T = Math.max(...seqs.map((s) => s.length));
      const tokens = seqs.flat().length;
      const batch = { ids: seqs, mask: seqs.map((s) => s.map((_, t) => (t > 0 ? 1 : 0))) };
      const adapter = LoraAdapter.create(model.config, { r: 4 }, 3);
      for (const v of adapter.variables().values()) v.assign(tf.add(v, 0.01));
      const grads = (target: Parameters<typeof computeGradients>[3]) => async () => {
        const r = await computeGradients(model.lm, batch, crossEntropyLoss, target);
        const out = new Map([...r.grads].map(([n, g]) => [n, Float32Array.from(g.dataSync())]));
        r.grads.forEach((g) => g.dispose());
        return { loss: r.loss, out };
      };
      for (const target of [{ adapter }, 'full' as const]) {
        const lora = target !== 'full';
        if (!lora) model.lm.setTrainable(true);
        const { native, pure } = await bothWaysAsync(grads(target));
        model.lm.setTrainable(false);
        // Cross-entropy: a mean of −log p, all terms of one sign, so the loss itself is the scale.
        assertScalarClose(
          native.loss,
          pure.loss,
          tolerance(lossModel(model.config, T, tokens, { loraRank: lora ? 4 : 0 })),
          `loss (${lora ? 'LoRA' : 'full'})`,
        );
        const tol = tolerance(gradientModel(model.config, T, tokens, { loraRank: lora ? 4 : 0 }));
        for (const [n, g] of native.out) assertClose(g, pure.out.get(n)!, tol, n);
      }
      adapter.dispose();
    });

    it('greedy generation picks the same tokens with the same log-probs', async () => {
      const prompt = ids()[0];
      const addon = loadNativeAddon()!;
      const native = await generateText(model.lm, model.tokenizer, prompt, { temperature: 0, maxNewTokens: 12 });
      unregisterNativeWasmKernels();
      const pure = await generateText(model.lm, model.tokenizer, prompt, { temperature: 0, maxNewTokens: 12 });
      registerNativeWasmKernels(addon);
      assert.deepEqual(native.tokens, pure.tokens);
      assertClose(native.logprobs, pure.logprobs, tolerance(logprobsModel(model.config, prompt.length + 12)), 'log-probs');
    });
  });
});
