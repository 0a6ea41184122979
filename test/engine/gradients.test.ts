import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { matmul } from '../../main/engine/model/layers/matmul.js';
import { Rng } from '../../main/util/random.js';

/**
 * Each registered gradient against central finite differences (float32): the loss is
 * Σ f(x)·w for a fixed random w, so every output element contributes.
 */
function checkGradient(name: string, f: (...xs: tf.Tensor[]) => tf.Tensor, shapes: number[][], opts: { positive?: boolean } = {}): void {
  const rng = new Rng(name.length * 7919);
  const values = shapes.map((s) => {
    const n = s.reduce((a, b) => a * b, 1);
    return Float32Array.from({ length: n }, () => (opts.positive ? 0.5 + rng.uniform() : rng.normal()));
  });
  const outShape = tf.tidy(() => f(...values.map((v, i) => tf.tensor(v, shapes[i]))).shape);
  const w = tf.tensor(
    Float32Array.from({ length: outShape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    outShape,
  );
  const loss = (...xs: tf.Tensor[]) => tf.sum(tf.mul(f(...xs), w));
  const analytic = tf.tidy(() =>
    tf
      .grads(loss)(values.map((v, i) => tf.tensor(v, shapes[i])))
      .map((g) => g.dataSync()),
  );
  const eps = 1e-2;
  values.forEach((v, k) => {
    for (let i = 0; i < v.length; i++) {
      const at = (delta: number) =>
        tf.tidy(() => {
          const copy = values.map((x) => Float32Array.from(x));
          copy[k][i] += delta;
          return loss(...copy.map((c, j) => tf.tensor(c, shapes[j]))).dataSync()[0];
        });
      const numeric = (at(eps) - at(-eps)) / (2 * eps);
      const a = analytic[k][i];
      assert.ok(
        Math.abs(a - numeric) <= 2e-2 * Math.max(1, Math.abs(numeric)),
        `${name}: d/dx${k}[${i}] analytic ${a} vs numeric ${numeric}`,
      );
    }
  });
  w.dispose();
}

describe('registered gradients match finite differences', () => {
  before(async () => {
    await initBackend('wasm');
  });
  const cases: Array<[string, (...xs: tf.Tensor[]) => tf.Tensor, number[][], { positive?: boolean }?]> = [
    ['add (broadcast)', (a, b) => tf.add(a, b), [[2, 3], [3]]],
    [
      'sub (broadcast)',
      (a, b) => tf.sub(a, b),
      [
        [2, 3],
        [2, 1],
      ],
    ],
    [
      'mul (broadcast)',
      (a, b) => tf.mul(a, b),
      [
        [2, 3],
        [1, 3],
      ],
    ],
    [
      'div',
      (a, b) => tf.div(a, b),
      [
        [2, 3],
        [2, 3],
      ],
      { positive: true },
    ],
    ['maximum/minimum', (a, b) => tf.add(tf.maximum(a, b), tf.mul(tf.minimum(a, b), 2)), [[6], [6]]],
    ['addN', (a, b) => tf.addN([a, b, a]), [[4], [4]]],
    ['neg/square', (x) => tf.neg(tf.square(x)), [[5]]],
    ['sqrt/rsqrt/log', (x) => tf.add(tf.add(tf.sqrt(x), tf.rsqrt(x)), tf.log(x)), [[5]], { positive: true }],
    ['exp/sigmoid/tanh/softplus', (x) => tf.addN([tf.exp(x), tf.sigmoid(x), tf.tanh(x), tf.softplus(x)]), [[5]]],
    ['abs', (x) => tf.abs(tf.add(x, 0.3)), [[5]]],
    ['mean/sum/max', (x) => tf.concat([tf.mean(x, -1, true), tf.reshape(tf.sum(x, 0, true), [3, 1]), tf.max(x, 1, true)], 1), [[3, 3]]],
    ['reshape/transpose', (x) => tf.transpose(tf.reshape(x, [2, 3, 2]), [2, 0, 1]), [[12]]],
    ['gather (repeated rows)', (x) => tf.gather(x, tf.tensor1d([2, 0, 2, 1], 'int32')), [[3, 4]]],
    // (copy before reversing: tfjs's tape holds split's output array itself)
    [
      'concat/split',
      (a, b) => tf.concat([...tf.split(tf.concat([a, b], 1), [1, 4], 1)].reverse(), 1),
      [
        [2, 2],
        [2, 3],
      ],
    ],
    ['split with an unused part', (x) => tf.split(x, 2, -1)[1], [[2, 4]]],
    ['tile', (x) => tf.tile(x, [3, 2]), [[2, 3]]],
    ['slice', (x) => tf.slice(x, [1, 0], [2, 2]), [[3, 3]]],
    ['softmax', (x) => tf.softmax(x), [[2, 5]]],
    ['logSoftmax', (x) => tf.logSoftmax(x), [[2, 5]]],
    ['clipByValue', (x) => tf.clipByValue(x, -0.5, 0.5), [[8]]],
    ['where', (a, b) => tf.where(tf.greater(a, 0), a, tf.mul(b, 3)), [[6], [6]]],
    ['comparison inside a product', (x) => tf.mul(x, tf.cast(tf.greater(x, 0), 'float32')), [[6]]],
    ['scatterND', (x) => tf.scatterND(tf.tensor2d([[1], [0], [1]], [3, 1], 'int32'), x, [2, 2]), [[3, 2]]],
    [
      'matMul (all transpose flags)',
      (a, b) => tf.addN([tf.matMul(a, b), tf.transpose(tf.matMul(b, a, true, true))]),
      [
        [2, 3],
        [3, 2],
      ],
    ],
    [
      'batched matMul',
      (a, b) => tf.matMul(a, b),
      [
        [2, 2, 3],
        [2, 3, 2],
      ],
    ],
    [
      'custom matmul',
      (a, b) => matmul(a, b),
      [
        [2, 2, 3],
        [2, 3, 4],
      ],
    ],
  ];
  for (const [name, f, shapes, opts] of cases) it(name, () => checkGradient(name, f, shapes, opts));
});
