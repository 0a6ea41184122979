import type * as tf from '@tensorflow/tfjs-core';
import type { NativeBackend } from '../nativeBackend.js';
import { REDUCE, type Buf } from '../ndAddon.js';
import { backendUtil, nativeKernel, size, stridesOf, temp, util, words } from './kernelUtil.js';

/** Reductions (Sum, Mean, Max, Min, Prod, ArgMax, ArgMin, Any, All), Softmax and TopK. */

/**
 * x viewed as [outer, axis, inner] with the reduced axes in the middle. Axes that are not one
 * adjacent run are moved last first (a strided copy).
 */
function asMiddle(backend: NativeBackend, x: tf.TensorInfo, axes: number[]): { buf: Buf; outer: number; axis: number; inner: number } {
  const sorted = [...axes].sort((p, q) => p - q);
  const adjacent = sorted.every((a, i) => i === 0 || a === sorted[i - 1] + 1);
  const shape = x.shape;
  if (adjacent && sorted.length) {
    const a0 = sorted[0];
    const a1 = sorted[sorted.length - 1];
    return {
      buf: words(backend, x),
      outer: size(shape.slice(0, a0)),
      axis: size(shape.slice(a0, a1 + 1)),
      inner: size(shape.slice(a1 + 1)),
    };
  }
  const kept = shape.map((_, i) => i).filter((i) => !sorted.includes(i));
  const perm = [...kept, ...sorted];
  const strides = stridesOf(shape);
  const buf = backend.nd.strided(
    words(backend, x),
    perm.map((p) => shape[p]),
    perm.map((p) => strides[p]),
    0,
  );
  return { buf: temp(buf), outer: size(kept.map((k) => shape[k])), axis: size(sorted.map((a) => shape[a])), inner: 1 };
}

function reduction(kernelName: string, op: keyof typeof REDUCE, axisAttr = 'axis'): tf.KernelConfig {
  return nativeKernel(kernelName, (backend, { x }, attrs) => {
    const axes = util.parseAxisParam(attrs[axisAttr] as number | number[], x.shape);
    const [outShape] = backendUtil.computeOutAndReduceShapes(x.shape, axes);
    const shape = attrs.keepDims ? backendUtil.expandShapeToKeepDim(outShape, axes) : outShape;
    const { buf, outer, axis, inner } = asMiddle(backend, x, axes);
    // A mean is float32 whatever it averages (tfjs casts int32 and bool inputs).
    const input = op === 'Mean' && x.dtype !== 'float32' ? temp(backend.nd.cast(buf, 0, false)) : buf;
    const out = backend.nd.reduce(REDUCE[op], input, outer, axis, inner);
    let dtype: tf.DataType = op === 'Mean' ? 'float32' : x.dtype;
    if (op === 'ArgMax' || op === 'ArgMin') dtype = 'int32';
    else if (op === 'Any' || op === 'All') dtype = 'bool';
    else if (op === 'Sum' && x.dtype === 'bool') dtype = 'int32';
    return backend.makeOutput(out, shape, dtype);
  });
}

export const REDUCE_KERNELS: tf.KernelConfig[] = [
  reduction('Sum', 'Sum'),
  reduction('Mean', 'Mean'),
  reduction('Prod', 'Prod'),
  reduction('Max', 'Max', 'reductionIndices'),
  reduction('Min', 'Min'),
  reduction('ArgMax', 'ArgMax'),
  reduction('ArgMin', 'ArgMin'),
  reduction('Any', 'Any'),
  reduction('All', 'All'),
  nativeKernel('Softmax', (backend, { logits }) => {
    const cols = logits.shape[logits.shape.length - 1] ?? 1;
    const buf = backend.nd.softmax(words(backend, logits), size(logits.shape) / Math.max(cols, 1), cols);
    return backend.makeOutput(buf, [...logits.shape], 'float32');
  }),
  nativeKernel('TopK', (backend, { x }, attrs) => {
    const cols = x.shape[x.shape.length - 1];
    const k = attrs.k as number;
    const rows = size(x.shape) / Math.max(cols, 1);
    const [values, indices] = backend.nd.topk(words(backend, x), rows, cols, k);
    const shape = [...x.shape.slice(0, -1), k];
    return [backend.makeOutput(values, shape, x.dtype), backend.makeOutput(indices, [...shape], 'int32')];
  }),
];
