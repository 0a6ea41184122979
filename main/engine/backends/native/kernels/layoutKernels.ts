import * as tf from '@tensorflow/tfjs-core';
import { backendUtil, kindOf, nativeKernel, normAxis, size, stridesOf, util, valueBits, words } from './kernelUtil.js';

/** Data movement: Reshape, Identity, Transpose, Slice, Concat, SplitV, Pack, Unpack, Tile, PadV2, BroadcastTo, Fill, Range. */

export const LAYOUT_KERNELS: tf.KernelConfig[] = [
  nativeKernel('Reshape', (backend, { x }, attrs) => backend.share(x, util.inferFromImplicitShape(attrs.shape as number[], size(x.shape)))),
  nativeKernel('Identity', (backend, { x }) => backend.share(x, [...x.shape])),
  nativeKernel('Transpose', (backend, { x }, attrs) => {
    const perm = attrs.perm as number[];
    const strides = stridesOf(x.shape);
    const shape = perm.map((p) => x.shape[p]);
    const buf = backend.nd.strided(
      words(backend, x),
      shape,
      perm.map((p) => strides[p]),
      0,
    );
    return backend.makeOutput(buf, shape, x.dtype);
  }),
  nativeKernel('Slice', (backend, { x }, attrs) => {
    const [begin, shape] = tf.slice_util.parseSliceParams(x as tf.Tensor, attrs.begin as number[], attrs.size as number[]);
    const strides = stridesOf(x.shape);
    const offset = begin.reduce((acc, b, d) => acc + b * strides[d], 0);
    return backend.makeOutput(backend.nd.strided(words(backend, x), shape, strides, offset), shape, x.dtype);
  }),
  nativeKernel('Concat', (backend, inputs, attrs) => {
    const list = (Object.values(inputs) as tf.TensorInfo[]).filter((t) => size(t.shape) > 0);
    const all = Object.values(inputs) as tf.TensorInfo[];
    const axis = normAxis(util.parseAxisParam(attrs.axis as number, all[0].shape)[0], all[0].shape.length);
    const shape = backendUtil.computeOutShape(
      all.map((t) => t.shape),
      axis,
    );
    if (!list.length) return backend.makeOutput(backend.nd.fill(kindOf(all[0].dtype), 0, 0), shape, all[0].dtype);
    const outer = size(shape.slice(0, axis));
    const buf = backend.nd.concat(
      list.map((t) => words(backend, t)),
      list.map((t) => size(t.shape.slice(axis))),
      outer,
    );
    return backend.makeOutput(buf, shape, all[0].dtype);
  }),
  nativeKernel('SplitV', (backend, { x }, attrs) => {
    const axis = util.parseAxisParam(attrs.axis as number, x.shape)[0];
    const sizes = backendUtil.prepareSplitSize(x as tf.Tensor, attrs.numOrSizeSplits as number | number[], axis);
    const inner = size(x.shape.slice(axis + 1));
    const bufs = backend.nd.split(
      words(backend, x),
      sizes.map((s) => s * inner),
      size(x.shape.slice(0, axis)),
    );
    return bufs.map((b, i) => {
      const shape = [...x.shape];
      shape[axis] = sizes[i];
      return backend.makeOutput(b, shape, x.dtype);
    });
  }),
  nativeKernel('Pack', (backend, inputs, attrs) => {
    const list = Object.values(inputs) as tf.TensorInfo[];
    const axis = normAxis(attrs.axis as number, list[0].shape.length + 1);
    const shape = [...list[0].shape];
    shape.splice(axis, 0, list.length);
    const block = size(list[0].shape.slice(axis));
    const buf = backend.nd.concat(
      list.map((t) => words(backend, t)),
      list.map(() => block),
      size(list[0].shape.slice(0, axis)),
    );
    return backend.makeOutput(buf, shape, list[0].dtype);
  }),
  nativeKernel('Unpack', (backend, { value }, attrs) => {
    const axis = normAxis(attrs.axis as number, value.shape.length);
    const n = value.shape[axis];
    const shape = value.shape.filter((_, i) => i !== axis);
    const bufs = backend.nd.split(words(backend, value), new Array<number>(n).fill(size(value.shape.slice(axis + 1))), size(value.shape.slice(0, axis)));
    return bufs.map((b) => backend.makeOutput(b, [...shape], value.dtype));
  }),
  nativeKernel('Tile', (backend, { x }, attrs) => {
    const reps = attrs.reps as number[];
    const shape = x.shape.map((d, i) => d * reps[i]);
    return backend.makeOutput(backend.nd.tile(words(backend, x), [...x.shape], reps), shape, x.dtype);
  }),
  nativeKernel('BroadcastTo', (backend, { x }, attrs) => {
    const shape = attrs.shape as number[];
    const padded = [...new Array<number>(shape.length - x.shape.length).fill(1), ...x.shape];
    const reps = shape.map((d, i) => (padded[i] === d ? 1 : d));
    return backend.makeOutput(backend.nd.tile(words(backend, x), padded, reps), [...shape], x.dtype);
  }),
  nativeKernel('PadV2', (backend, { x }, attrs) => {
    const paddings = attrs.paddings as Array<[number, number]>;
    const shape = x.shape.map((d, i) => paddings[i][0] + d + paddings[i][1]);
    const buf = backend.nd.pad(
      words(backend, x),
      [...x.shape],
      paddings.map((p) => p[0]),
      paddings.map((p) => p[1]),
      valueBits(attrs.constantValue as number, x.dtype),
    );
    return backend.makeOutput(buf, shape, x.dtype);
  }),
  nativeKernel('Fill', (backend, _inputs, attrs) => {
    const shape = attrs.shape as number[];
    const dtype = (attrs.dtype as tf.DataType) ?? 'float32';
    return backend.makeOutput(backend.nd.fill(kindOf(dtype), size(shape), valueBits(attrs.value as number, dtype)), [...shape], dtype);
  }),
  nativeKernel('Range', (backend, _inputs, attrs) => {
    const { start, stop, step } = attrs as { start: number; stop: number; step: number };
    const dtype = (attrs.dtype as 'float32' | 'int32') ?? 'float32';
    const n = Math.max(0, Math.ceil((stop - start) / step));
    const values = dtype === 'int32' ? new Int32Array(n) : new Float32Array(n);
    for (let i = 0; i < n; i++) values[i] = start + i * step;
    return backend.makeOutput(backend.nd.bufFromArray(values, kindOf(dtype)), [n], dtype);
  }),
];
