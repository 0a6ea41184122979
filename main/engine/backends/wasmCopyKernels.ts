import type * as tf from '@tensorflow/tfjs-core';
import type { NativeAddon } from './nativeAddon.js';
import { FOUR_BYTES, heapView, normAxis, size, wordsView, type WasmBackend } from './wasmHeap.js';

/**
 * Native kernels that move data (tile, identity, gather, concat, split): each replaces tfjs-wasm's
 * kernel of that name, and hands anything it does not cover to that original kernel.
 */

/** Tile (and so broadcastTo) for 4-byte dtypes, by block copies. */
export function tile(addon: NativeAddon) {
  return (original: tf.KernelFunc): tf.KernelFunc =>
    (args) => {
      const { x } = args.inputs as { x: tf.TensorInfo };
      const { reps } = args.attrs as { reps: number[] };
      if ((x.dtype !== 'float32' && x.dtype !== 'int32') || x.shape.length === 0 || x.shape.length > 8 || size(x.shape) === 0) {
        return original(args);
      }
      const backend = args.backend as unknown as WasmBackend;
      const out = backend.makeOutput(
        x.shape.map((d, i) => d * reps[i]),
        x.dtype,
      );
      addon.tile(heapView(backend, x), heapView(backend, out), [...x.shape], [...reps]);
      return out;
    };
}

/**
 * Identity without a copy. tfjs clones every tensor it saves for the backward pass through this
 * kernel, and tfjs-wasm copies the data each time; tensors are immutable, so sharing the buffer (as
 * tfjs-wasm's own Reshape does) is safe and saves a malloc + memcpy per saved tensor.
 */
export function identity() {
  return (original: tf.KernelFunc): tf.KernelFunc =>
    (args) => {
      const { x } = args.inputs as { x: tf.TensorInfo };
      if (x.dtype === 'string') return original(args);
      (args.backend as unknown as WasmBackend).incRef(x.dataId);
      return { dataId: x.dataId, shape: [...x.shape], dtype: x.dtype };
    };
}

/** Gather along an axis (batchDims 0): one memcpy per row. */
export function gatherV2(addon: NativeAddon) {
  return (original: tf.KernelFunc): tf.KernelFunc =>
    (args) => {
      const { x, indices } = args.inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
      const { axis, batchDims } = args.attrs as { axis: number; batchDims: number };
      if (
        !FOUR_BYTES.has(x.dtype) ||
        indices.dtype !== 'int32' ||
        (batchDims ?? 0) !== 0 ||
        size(x.shape) === 0 ||
        size(indices.shape) === 0
      ) {
        return original(args);
      }
      const ax = normAxis(axis, x.shape.length);
      const backend = args.backend as unknown as WasmBackend;
      const out = backend.makeOutput([...x.shape.slice(0, ax), ...indices.shape, ...x.shape.slice(ax + 1)], x.dtype);
      const idx = heapView(backend, indices);
      addon.gather(
        wordsView(backend, x),
        new Int32Array(idx.buffer, idx.byteOffset, idx.length),
        size(x.shape.slice(0, ax)),
        x.shape[ax],
        size(x.shape.slice(ax + 1)),
        wordsView(backend, out),
      );
      return out;
    };
}

/** Concat along any axis: per outer index, each input's block copied in turn. */
export function concat(addon: NativeAddon) {
  return (original: tf.KernelFunc): tf.KernelFunc =>
    (args) => {
      const inputs = args.inputs as unknown as tf.TensorInfo[];
      const { axis } = args.attrs as { axis: number };
      if (inputs.length < 2 || !inputs.every((t) => FOUR_BYTES.has(t.dtype) && t.dtype === inputs[0].dtype && size(t.shape) > 0))
        return original(args);
      const ax = normAxis(axis, inputs[0].shape.length);
      const outShape = [...inputs[0].shape];
      outShape[ax] = inputs.reduce((s, t) => s + t.shape[ax], 0);
      const inner = size(outShape.slice(ax + 1));
      const backend = args.backend as unknown as WasmBackend;
      const out = backend.makeOutput(outShape, inputs[0].dtype);
      addon.concat(
        inputs.map((t) => wordsView(backend, t)),
        inputs.map((t) => t.shape[ax] * inner),
        size(outShape.slice(0, ax)),
        wordsView(backend, out),
      );
      return out;
    };
}

/** SplitV along any axis: the inverse of concat. */
export function splitV(addon: NativeAddon) {
  return (original: tf.KernelFunc): tf.KernelFunc =>
    (args) => {
      const { x } = args.inputs as { x: tf.TensorInfo };
      const { numOrSizeSplits, axis } = args.attrs as { numOrSizeSplits: number | number[]; axis: number };
      if (!FOUR_BYTES.has(x.dtype) || size(x.shape) === 0) return original(args);
      const ax = normAxis(axis, x.shape.length);
      let sizes = Array.isArray(numOrSizeSplits)
        ? [...numOrSizeSplits]
        : new Array<number>(numOrSizeSplits).fill(x.shape[ax] / numOrSizeSplits);
      const free = sizes.indexOf(-1);
      if (free >= 0) sizes[free] = x.shape[ax] - sizes.reduce((s, v, i) => (i === free ? s : s + v), 0);
      if (sizes.some((v) => !Number.isInteger(v) || v <= 0) || sizes.reduce((a, b) => a + b, 0) !== x.shape[ax]) return original(args);
      const inner = size(x.shape.slice(ax + 1));
      const backend = args.backend as unknown as WasmBackend;
      const outs = sizes.map((n) => {
        const shape = [...x.shape];
        shape[ax] = n;
        return backend.makeOutput(shape, x.dtype);
      });
      sizes = sizes.map((n) => n * inner);
      addon.split(
        wordsView(backend, x),
        outs.map((o) => wordsView(backend, o)),
        sizes,
        size(x.shape.slice(0, ax)),
      );
      return outs as unknown as tf.TensorInfo;
    };
}
