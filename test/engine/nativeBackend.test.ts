import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { NATIVE_KERNELS } from '../../main/engine/backends/native/registerNativeBackend.js';
import { Rng } from '../../main/util/random.js';
import { assertClose, maxAbsOf, tolerance, UNIT_ROUNDOFF } from '../helpers/numeric.js';
import { FUSED, fusable } from '../../main/engine/ops/fusedKernels.js';
import { vocabStats } from '../../main/engine/training/vocabStats.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';

/**
 * Every kernel of the native backend against tfjs's pure-JS cpu backend, on the same inputs:
 * data movement and integer results exactly, float results within a tolerance derived from the
 * reduction each one does.
 */

type Values = { shape: number[]; dtype: tf.DataType; data: number[] };
/** A case: inputs (by shape; float32 normal(0,1) unless given), the op, and the reduction length of its float results. */
interface Case {
  name: string;
  inputs: Array<number[] | Values>;
  op: (...xs: tf.Tensor[]) => tf.Tensor | tf.Tensor[];
  length?: number;
}

const f = (shape: number[]) => shape;
const int = (shape: number[], data: number[]): Values => ({ shape, dtype: 'int32', data });
const bool = (shape: number[], data: number[]): Values => ({ shape, dtype: 'bool', data });
const pos = (x: tf.Tensor) => tf.add(tf.abs(x), 0.25);

const BROADCASTS: Array<[number[], number[]]> = [
  [[2, 3, 4], [2, 3, 4]],
  [[2, 3, 4], [4]],
  [[2, 1, 4], [3, 1]],
  [[], [2, 3]],
  [[2, 3, 4], [2, 1, 1]],
  [[50000], [50000]],
];

const BINARY_OPS: Array<[string, (a: tf.Tensor, b: tf.Tensor) => tf.Tensor]> = [
  ['add', tf.add],
  ['sub', tf.sub],
  ['mul', tf.mul],
  ['div', (a, b) => tf.div(a, pos(b))],
  ['maximum', tf.maximum],
  ['minimum', tf.minimum],
  ['floorDiv', (a, b) => tf.floorDiv(a, pos(b))],
  ['squaredDifference', tf.squaredDifference],
  ['pow', (a, b) => tf.pow(pos(a), b)],
  ['equal', (a, b) => tf.equal(tf.round(a), tf.round(b))],
  ['notEqual', (a, b) => tf.notEqual(tf.round(a), tf.round(b))],
  ['greater', tf.greater],
  ['greaterEqual', tf.greaterEqual],
  ['less', tf.less],
  ['lessEqual', tf.lessEqual],
  ['logicalAnd', (a, b) => tf.logicalAnd(tf.greater(a, 0), tf.greater(b, 0))],
  ['logicalOr', (a, b) => tf.logicalOr(tf.greater(a, 0), tf.greater(b, 0))],
];

const UNARY_OPS: Array<[string, (x: tf.Tensor) => tf.Tensor]> = [
  ['abs', tf.abs],
  ['neg', tf.neg],
  ['exp', tf.exp],
  ['log', (x) => tf.log(pos(x))],
  ['sqrt', (x) => tf.sqrt(pos(x))],
  ['rsqrt', (x) => tf.rsqrt(pos(x))],
  ['square', tf.square],
  ['sigmoid', tf.sigmoid],
  ['sign', tf.sign],
  ['floor', (x) => tf.floor(tf.mul(x, 3))],
  ['ceil', (x) => tf.ceil(tf.mul(x, 3))],
  ['round', (x) => tf.round(tf.mul(x, 3))],
  ['tanh', tf.tanh],
  ['softplus', (x) => tf.softplus(tf.mul(x, 10))],
  ['relu', tf.relu],
  ['log1p', (x) => tf.log1p(pos(x))],
  ['reciprocal', (x) => tf.reciprocal(pos(x))],
  ['logicalNot', (x) => tf.logicalNot(tf.greater(x, 0))],
  ['clipByValue', (x) => tf.clipByValue(x, -0.5, 0.7)],
  ['cast to int32', (x) => tf.cast(tf.mul(x, 10), 'int32')],
  ['cast to bool', (x) => tf.cast(tf.round(x), 'bool')],
  ['int32 abs, neg, sign, square', (x) => {
    const i = tf.cast(tf.mul(x, 10), 'int32');
    return tf.stack([tf.abs(i), tf.neg(i), tf.sign(i), tf.square(i)]);
  }],
];

const REDUCTIONS: Array<[number | number[] | undefined, boolean]> = [
  [undefined, false],
  [0, false],
  [-1, true],
  [[1, 2], false],
  [[0, 2], true], // not adjacent
];

const CASES: Case[] = [
  ...BROADCASTS.flatMap(([sa, sb]) => BINARY_OPS.map(([n, op]) => ({ name: `${n} ${JSON.stringify(sa)} ${JSON.stringify(sb)}`, inputs: [f(sa), f(sb)], op }))),
  { name: 'int32 add, sub, mul, floorDiv, maximum', inputs: [int([2, 3], [5, -7, 3, 0, 9, -2]), int([3], [2, 3, -4])], op: (a, b) => tf.stack([tf.add(a, b), tf.sub(a, b), tf.mul(a, b), tf.floorDiv(a, b), tf.maximum(a, b)]) },
  ...UNARY_OPS.map(([n, op]) => ({ name: n, inputs: [f([3, 70])], op })),
  { name: 'select', inputs: [bool([2, 3], [1, 0, 1, 1, 0, 0]), f([2, 3]), f([2, 3])], op: (c, t, e) => tf.where(c, t, e) },
  { name: 'addN', inputs: [f([4, 5]), f([4, 5]), f([4, 5])], op: (a, b, c) => tf.addN([a, b, c]), length: 3 },
  { name: 'zerosLike, onesLike, fill, range', inputs: [f([2, 3])], op: (x) => tf.concat([tf.zerosLike(x), tf.onesLike(x), tf.fill([2, 3], 2.5), tf.reshape(tf.range(0, 6, 1), [2, 3])]) },
  { name: 'range int32 and reversed', inputs: [], op: () => tf.concat([tf.range(10, 1, -3, 'int32'), tf.range(0, 5, 2, 'int32')]) },
  ...REDUCTIONS.flatMap(([axis, keep]) => [
    { name: `sum ${axis} ${keep}`, inputs: [f([3, 4, 5])], op: (x: tf.Tensor) => tf.sum(x, axis, keep), length: 60 },
    { name: `mean ${axis} ${keep}`, inputs: [f([3, 4, 5])], op: (x: tf.Tensor) => tf.mean(x, axis, keep), length: 60 },
    { name: `max, min ${axis} ${keep}`, inputs: [f([3, 4, 5])], op: (x: tf.Tensor) => tf.stack([tf.max(x, axis, keep), tf.min(x, axis, keep)]) },
    { name: `prod ${axis} ${keep}`, inputs: [f([3, 4, 5])], op: (x: tf.Tensor) => tf.prod(tf.add(tf.mul(x, 0.1), 1), axis, keep), length: 60 },
    { name: `any, all ${axis} ${keep}`, inputs: [f([3, 4, 5])], op: (x: tf.Tensor) => tf.stack([tf.any(tf.greater(x, 1), axis, keep), tf.all(tf.greater(x, -1), axis, keep)]) },
    { name: `int32 sum ${axis} ${keep}`, inputs: [f([3, 4, 5])], op: (x: tf.Tensor) => tf.sum(tf.cast(tf.mul(x, 10), 'int32'), axis, keep) },
  ]),
  { name: 'argMax, argMin', inputs: [f([3, 4, 5])], op: (x) => [tf.argMax(x, 0), tf.argMax(x, -1), tf.argMin(x, 1)] },
  { name: 'softmax', inputs: [f([6, 33])], op: (x) => tf.softmax(tf.mul(x, 5)), length: 33 },
  { name: 'logSoftmax', inputs: [f([6, 33])], op: (x) => tf.logSoftmax(tf.mul(x, 5)), length: 33 },
  { name: 'topk', inputs: [f([4, 50])], op: (x) => { const r = tf.topk(tf.round(tf.mul(x, 4)), 7); return [r.values, r.indices]; } },
  { name: 'reshape, clone', inputs: [f([2, 3, 4])], op: (x) => tf.concat([tf.reshape(x, [6, 4]), tf.clone(tf.reshape(x, [-1, 4]))]) },
  ...[[1, 0, 2], [0, 2, 1], [2, 1, 0], [1, 2, 0]].map((perm) => ({ name: `transpose ${perm}`, inputs: [f([5, 34, 37])], op: (x: tf.Tensor) => tf.transpose(x, perm) })),
  { name: 'transpose int32 4-d', inputs: [int([2, 2, 1, 3], [...Array(12).keys()])], op: (x) => tf.transpose(x, [0, 2, 1, 3]) },
  { name: 'slice', inputs: [f([4, 5, 6])], op: (x) => tf.concat([tf.reshape(tf.slice(x, [1, 2, 0], [2, 2, -1]), [-1]), tf.reshape(tf.slice(x, [0, 0, 3], [4, 5, 2]), [-1])]) },
  ...[0, 1, 2, -1].map((axis) => ({ name: `concat, split, stack, unstack on axis ${axis}`, inputs: [f([3, 4, 5]), f([3, 4, 5])], op: (a: tf.Tensor, b: tf.Tensor) => {
    const ax = axis < 0 ? 2 : axis;
    const c = tf.concat([a, b, a], axis);
    const parts = tf.split(c, [a.shape[ax], 2 * a.shape[ax]], axis);
    return [c, ...parts, tf.stack([a, b], ax), ...tf.unstack(a, ax)];
  } })),
  { name: 'concat with an empty tensor', inputs: [f([2, 3])], op: (x) => tf.concat([x, tf.zeros([0, 3]), x]) },
  { name: 'tile, broadcastTo', inputs: [f([2, 1, 3])], op: (x) => [tf.tile(x, [2, 3, 1]), tf.broadcastTo(x, [4, 2, 5, 3])] },
  { name: 'pad', inputs: [f([2, 3, 4])], op: (x) => tf.pad(x, [[1, 0], [0, 2], [3, 1]], 0.5) },
  { name: 'pad int32', inputs: [int([2, 2], [1, 2, 3, 4])], op: (x) => tf.pad(x, [[1, 1], [0, 1]], -3) },
  { name: 'gather axis 0 and 1, indices of rank 2', inputs: [f([5, 6, 3]), int([2, 2], [4, 0, 1, 1])], op: (x, i) => [tf.gather(x, i, 0), tf.gather(x, tf.reshape(i, [-1]), 1)] },
  { name: 'gatherND', inputs: [f([4, 5, 6]), int([3, 2], [3, 4, 0, 0, 2, 1])], op: (x, i) => tf.gatherND(x, i) },
  { name: 'scatterND adds duplicates', inputs: [int([4, 1], [2, 0, 2, 3]), f([4, 5])], op: (i, u) => tf.scatterND(i, u, [6, 5]), length: 2 },
  ...([[false, false], [true, false], [false, true], [true, true]] as const).flatMap(([ta, tb]) => [
    { name: `matMul ${ta} ${tb}`, inputs: [f(ta ? [40, 9] : [9, 40]), f(tb ? [11, 40] : [40, 11])], op: (a: tf.Tensor, b: tf.Tensor) => tf.matMul(a, b, ta, tb), length: 40 },
    { name: `matMul one row ${ta} ${tb}`, inputs: [f(ta ? [40, 1] : [1, 40]), f(tb ? [11, 40] : [40, 11])], op: (a: tf.Tensor, b: tf.Tensor) => tf.matMul(a, b, ta, tb), length: 40 },
  ]),
  { name: 'batched matMul, broadcast batch', inputs: [f([2, 3, 4, 6]), f([3, 6, 5])], op: (a, b) => tf.matMul(a, b), length: 6 },
  { name: 'batched matMul, broadcast a leading dim', inputs: [f([2, 3, 4, 6]), f([1, 3, 6, 5])], op: (a, b) => tf.matMul(a, b, false, false), length: 6 },
];

function make(spec: number[] | Values, seed: number): tf.Tensor {
  if (!Array.isArray(spec)) return tf.tensor(spec.data, spec.shape, spec.dtype);
  const rng = new Rng(seed);
  return tf.tensor(Float32Array.from({ length: spec.reduce((a, b) => a * b, 1) }, () => rng.normal()), spec, 'float32');
}

async function runOn(backend: 'native' | 'cpu', c: Case): Promise<Array<{ shape: number[]; dtype: string; data: number[] }>> {
  await initBackend(backend);
  return tf.tidy(() => {
    const xs = c.inputs.map((s, i) => make(s, i + 1));
    const out = c.op(...xs);
    return (Array.isArray(out) ? out : [out]).map((t) => ({ shape: t.shape, dtype: t.dtype, data: Array.from(t.dataSync()) }));
  });
}

describe('native backend kernels equal tfjs-cpu', { skip: nativeSkipReason() }, () => {
  before(async () => {
    await initBackend('native');
  });

  for (const c of CASES) {
    it(c.name, async () => {
      const want = await runOn('cpu', c);
      const before = tf.memory().numTensors;
      const got = await runOn('native', c);
      assert.equal(tf.memory().numTensors, before, 'no tensor left behind');
      assert.equal(got.length, want.length);
      got.forEach((g, i) => {
        assert.deepEqual([g.shape, g.dtype], [want[i].shape, want[i].dtype], `output ${i}: shape and dtype`);
        if (g.dtype !== 'float32') return assert.deepEqual(g.data, want[i].data, `output ${i}`);
        // Element-wise maps round a few times (exp/log/tanh to a few ulps): 8 roundings; reductions add their length.
        assertClose(g.data, want[i].data, tolerance({ dtype: 'float32', length: (c.length ?? 1) + 8 }), `output ${i}`);
      });
    });
  }

  it('registers a kernel for every op the engine runs', () => {
    // The kernels the engine's tests reach on tfjs-wasm (logged once over the engine and RL suites).
    const used = ['Abs', 'Add', 'AddN', 'ArgMax', 'BatchMatMul', 'Cast', 'ClipByValue', 'Concat', 'Equal', 'Exp', 'Fill', 'Floor', 'GatherNd',
      'GatherV2', 'Greater', 'GreaterEqual', 'Identity', 'Less', 'LessEqual', 'Log', 'LogicalAnd', 'LogicalNot', 'LogicalOr', 'Max',
      'Maximum', 'Mean', 'Minimum', 'Multiply', 'Neg', 'Pack', 'PadV2', 'Range', 'RealDiv', 'Reshape', 'Rsqrt', 'ScatterNd', 'Select',
      'Sigmoid', 'Sign', 'Slice', 'Softmax', 'Softplus', 'SplitV', 'Sqrt', 'Square', 'Sub', 'Sum', 'Tanh', 'Tile', 'TopK', 'Transpose', 'ZerosLike'];
    const have = new Set(NATIVE_KERNELS.map((k) => k.kernelName));
    assert.deepEqual(used.filter((k) => !have.has(k)), []);
  });

  it('fused vocabulary statistics across several panels equal log-softmax and entropy, value and gradients', async () => {
    await initBackend('native');
    // H = 8192 makes the kernel's panels 128 vocabulary rows: 320 rows take three, with a rescale at each.
    const [N, V, H] = [5, 320, 8192];
    const h = tf.mul(make([N, H], 1), 0.05) as tf.Tensor2D;
    const w = tf.mul(make([V, H], 2), 0.05);
    const dy = make([N, 2], 3);
    const loss = (stats: tf.Tensor) => tf.sum(tf.mul(stats, dy));
    assert.ok(fusable(FUSED.vocabStats, h), 'the native backend has the fused kernel');
    const fusedStats = (x: tf.Tensor2D, wv: tf.Tensor, weightGrad: boolean) => vocabStats(x, { w: wv, layout: 'outIn' }, weightGrad);
    const fused = tf.grads((x: tf.Tensor, wv: tf.Tensor) => loss(fusedStats(x as tf.Tensor2D, wv, true)));
    const plain = tf.grads((x: tf.Tensor, wv: tf.Tensor) => {
      const logits = tf.matMul(x, wv, false, true);
      const lse = tf.logSumExp(logits, -1, true);
      const logp = tf.sub(logits, lse);
      const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1, true));
      return loss(tf.concat([lse, entropy], 1));
    });
    const [a, b] = [fused([h, w]), plain([h, w])];
    const stats = fusedStats(h, w, false).dataSync();
    const logits = tf.matMul(h, w, false, true);
    const lse = tf.logSumExp(logits, -1).dataSync();
    for (let n = 0; n < N; n++) assertClose([stats[2 * n]], [lse[n]], tolerance({ dtype: 'float32', length: H + V }), `lse ${n}`, { scale: Math.abs(lse[n]) + 1 });
    // dz = p·(dlse − dH·(log p + H)) cancels terms of about |log p| ≈ log V (≈ 6) times the result's
    // size: the rounding errors are relative to those terms, hence the scale of 4× the largest gradient.
    const tol = tolerance({ dtype: 'float32', length: H + 2 * V, chain: 3 });
    assertClose(a[0].dataSync(), b[0].dataSync(), tol, 'dh', { scale: maxAbsOf(b[0].dataSync()) * 4 });
    assertClose(a[1].dataSync(), b[1].dataSync(), tol, 'dW', { scale: maxAbsOf(b[1].dataSync()) * 4 });
    tf.dispose([h, w, dy, ...a, ...b, logits]);
  });

  it('errors name the kernel and what is wrong', async () => {
    await initBackend('native');
    assert.throws(() => tf.gather(tf.tensor1d([1, 2, 3]), tf.tensor1d([3], 'int32')), /native gather: index 3 is outside \[0, 3\)/);
    assert.throws(() => tf.tensor(['a']), /native backend has no string tensors/);
    void UNIT_ROUNDOFF;
  });
});
