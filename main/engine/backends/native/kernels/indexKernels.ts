import * as tf from '@tensorflow/tfjs-core';
import type { NativeBackend } from '../nativeBackend.js';
import { backendUtil, nativeKernel, size, stored, util, words } from './kernelUtil.js';

/** Indexing kernels (GatherV2, GatherNd, ScatterNd) and the matrix product. */

/** Int32 indices (tfjs may pass float32 index tensors to gather). */
function indexBuf(backend: NativeBackend, t: tf.TensorInfo) {
  if (t.dtype === 'int32') return words(backend, t);
  throw new Error(`native gather: indices must be int32, got ${t.dtype}`);
}

/** tfjs's gather/scatter strides count slices (and end with a 1); the addon wants element strides per index dim. */
function elementStrides(strides: number[], nd: number, sliceSize: number): number[] {
  return strides.slice(0, nd).map((s) => s * sliceSize);
}

/**
 * The batch dims of a matmul operand broadcast to `to`: the same buffer when its batch already
 * matches or is a single matrix (stride 0), else a tiled copy.
 */
function batchOperand(backend: NativeBackend, t: tf.TensorInfo, batch: number[], to: number[]) {
  const n = size(batch);
  if (n === 1 || batch.length === to.length && batch.every((d, i) => d === to[i])) return { buf: null, stride: n === 1 ? 0 : -1 };
  const padded = [...new Array<number>(to.length - batch.length).fill(1), ...batch];
  const mat = t.shape.slice(-2);
  const reps = [...to.map((d, i) => (padded[i] === d ? 1 : d)), 1, 1];
  return { buf: backend.nd.tile(words(backend, t), [...padded, ...mat], reps), stride: -1 };
}

export const INDEX_KERNELS: tf.KernelConfig[] = [
  nativeKernel('GatherV2', (backend, { x, indices }, attrs) => {
    const axis = util.parseAxisParam(attrs.axis as number, x.shape)[0];
    if (((attrs.batchDims as number) ?? 0) !== 0) throw new Error('native GatherV2: batchDims other than 0 is not supported');
    const shape = [...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)];
    const buf = backend.nd.gather(stored(backend, x), indexBuf(backend, indices), size(x.shape.slice(0, axis)), x.shape[axis], size(x.shape.slice(axis + 1)));
    return backend.makeOutput(buf, shape, x.dtype);
  }),
  nativeKernel('GatherNd', (backend, { params, indices }) => {
    const [shape, numSlices, sliceSize, strides] = backendUtil.prepareAndValidate(params as tf.Tensor, indices as tf.Tensor);
    const nd = indices.shape[indices.shape.length - 1];
    const buf = backend.nd.gatherNd(words(backend, params), indexBuf(backend, indices), numSlices, elementStrides(strides, nd, sliceSize), sliceSize);
    return backend.makeOutput(buf, shape, params.dtype);
  }),
  nativeKernel('ScatterNd', (backend, { indices, updates }, attrs) => {
    const shape = attrs.shape as number[];
    const s = backendUtil.calculateShapes(updates as tf.Tensor, indices as tf.Tensor, shape);
    if (updates.dtype !== 'float32') throw new Error(`native ScatterNd: updates must be float32, got ${updates.dtype}`);
    const strides = elementStrides(s.strides, s.sliceRank, s.sliceSize);
    const buf = backend.nd.scatterNd(indexBuf(backend, indices), words(backend, updates), s.numUpdates, strides, s.sliceSize, s.outputSize);
    return backend.makeOutput(buf, [...shape], 'float32');
  }),
  nativeKernel('BatchMatMul', (backend, { a, b }, attrs) => {
    const ta = attrs.transposeA === true;
    const tb = attrs.transposeB === true;
    const ra = a.shape.length;
    const rb = b.shape.length;
    const M = ta ? a.shape[ra - 1] : a.shape[ra - 2];
    const K = ta ? a.shape[ra - 2] : a.shape[ra - 1];
    const N = tb ? b.shape[rb - 2] : b.shape[rb - 1];
    if ((tb ? b.shape[rb - 1] : b.shape[rb - 2]) !== K) {
      throw new Error(`native BatchMatMul: inner dimensions differ (${a.shape} x ${b.shape}, transposeA ${ta}, transposeB ${tb})`);
    }
    const batchA = a.shape.slice(0, -2);
    const batchB = b.shape.slice(0, -2);
    const outBatch = backendUtil.assertAndGetBroadcastShape(batchA, batchB);
    const pa = batchOperand(backend, a, batchA, outBatch);
    const pb = batchOperand(backend, b, batchB, outBatch);
    const bufA = pa.buf ?? words(backend, a);
    // B stays as stored: a 16-bit weight is multiplied without a float32 copy.
    const bufB = pb.buf ?? stored(backend, b);
    const out = backend.nd.matmul(bufA, bufB, size(outBatch), M, N, K, ta, tb, pa.stride === 0 ? 0 : M * K, pb.stride === 0 ? 0 : K * N);
    if (pa.buf) backend.nd.bufFree(pa.buf);
    if (pb.buf) backend.nd.bufFree(pb.buf);
    return backend.makeOutput(out, [...outBatch, M, N], 'float32');
  }),
];
