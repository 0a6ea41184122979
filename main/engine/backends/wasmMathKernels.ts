import type * as tf from '@tensorflow/tfjs-core';
import { broadcastPlan } from './broadcastPlan.js';
import type { NativeAddon, UnaryOp } from './nativeAddon.js';
import { heapView, normAxis, size, type WasmBackend } from './wasmHeap.js';

/**
 * Native kernels that compute (matmul, element-wise maps and arithmetic, sum, softmax): each
 * replaces tfjs-wasm's kernel of that name, and hands anything it does not cover to that original
 * kernel.
 */

/**
 * BatchMatMul on native BLAS, reading and writing the wasm heap in place. Batch shapes must match
 * or one side must have a single matrix (broadcast); anything else goes to tfjs's own kernel.
 */
export function batchMatMul(addon: NativeAddon) {
  return (original: tf.KernelFunc): tf.KernelFunc =>
    (args) => {
      const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
      const { transposeA, transposeB } = args.attrs as { transposeA: boolean; transposeB: boolean };
      if (a.dtype !== 'float32' || b.dtype !== 'float32' || a.shape.length < 2 || b.shape.length < 2) return original(args);
      const ra = a.shape.length;
      const rb = b.shape.length;
      const M = transposeA ? a.shape[ra - 1] : a.shape[ra - 2];
      const K = transposeA ? a.shape[ra - 2] : a.shape[ra - 1];
      const Kb = transposeB ? b.shape[rb - 1] : b.shape[rb - 2];
      const N = transposeB ? b.shape[rb - 2] : b.shape[rb - 1];
      const batchA = a.shape.slice(0, -2);
      const batchB = b.shape.slice(0, -2);
      const nA = size(batchA);
      const nB = size(batchB);
      const sameBatch = nA === nB && (ra === rb ? batchA.every((d, i) => d === batchB[i]) : nA === 1);
      if (K !== Kb || M * N * K === 0 || !(sameBatch || nA === 1 || nB === 1)) return original(args);
      const outBatch = nA >= nB ? batchA : batchB;
      const batch = Math.max(nA, nB);
      const backend = args.backend as unknown as WasmBackend;
      const out = backend.makeOutput([...outBatch, M, N], 'float32');
      // Views after makeOutput: an allocation may have grown (and replaced) the heap buffer.
      addon.gemm(
        heapView(backend, a),
        heapView(backend, b),
        heapView(backend, out),
        batch,
        M,
        N,
        K,
        transposeA,
        transposeB,
        nA === 1 ? 0 : M * K,
        nB === 1 ? 0 : K * N,
        M * N,
      );
      return out;
    };
}

/** Element-wise maps (Exp, Sigmoid, Square, Sqrt, Rsqrt, Neg), threaded. */
export function unaryKernel(addon: NativeAddon, op: UnaryOp) {
  return (original: tf.KernelFunc): tf.KernelFunc =>
    (args) => {
      const { x } = args.inputs as { x: tf.TensorInfo };
      if (x.dtype !== 'float32' || size(x.shape) === 0) return original(args);
      const backend = args.backend as unknown as WasmBackend;
      const out = backend.makeOutput([...x.shape], 'float32');
      addon.unary(op, heapView(backend, x), heapView(backend, out));
      return out;
    };
}

/** Add, Sub, Multiply and RealDiv on float32 for the common broadcast patterns, threaded. */
export function binaryKernel(addon: NativeAddon, op: 0 | 1 | 2 | 3) {
  return (original: tf.KernelFunc): tf.KernelFunc =>
    (args) => {
      const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
      if (a.dtype !== 'float32' || b.dtype !== 'float32') return original(args);
      const plan = broadcastPlan(a.shape, b.shape);
      if (!plan) return original(args);
      const backend = args.backend as unknown as WasmBackend;
      const out = backend.makeOutput(plan.shape, 'float32');
      addon.binary(op, plan.mode, heapView(backend, a), heapView(backend, b), heapView(backend, out), plan.rows, plan.cols);
      return out;
    };
}

/** Sum over one run of adjacent axes of a float32 tensor. */
export function sumKernel(addon: NativeAddon) {
  return (original: tf.KernelFunc): tf.KernelFunc =>
    (args) => {
      const { x } = args.inputs as { x: tf.TensorInfo };
      const { axis, keepDims } = args.attrs as { axis: number | number[]; keepDims: boolean };
      const rank = x.shape.length;
      if (x.dtype !== 'float32' || rank === 0 || size(x.shape) === 0) return original(args);
      const axes = [...new Set((Array.isArray(axis) ? axis : [axis]).map((d) => normAxis(d, rank)))].sort((p, q) => p - q);
      if (axes.length === 0 || axes.some((d, i) => d !== axes[0] + i)) return original(args);
      const first = axes[0];
      const last = axes[axes.length - 1];
      const outShape = keepDims
        ? x.shape.map((d, i) => (i >= first && i <= last ? 1 : d))
        : x.shape.filter((_, i) => i < first || i > last);
      const backend = args.backend as unknown as WasmBackend;
      const out = backend.makeOutput(outShape, 'float32');
      addon.reduceSum(
        heapView(backend, x),
        heapView(backend, out),
        size(x.shape.slice(0, first)),
        size(x.shape.slice(first, last + 1)),
        size(x.shape.slice(last + 1)),
      );
      return out;
    };
}

/** Softmax over the last axis. */
export function softmaxKernel(addon: NativeAddon) {
  return (original: tf.KernelFunc): tf.KernelFunc =>
    (args) => {
      const { logits } = args.inputs as { logits: tf.TensorInfo };
      const { dim } = args.attrs as { dim: number };
      const rank = logits.shape.length;
      if (logits.dtype !== 'float32' || rank === 0 || size(logits.shape) === 0 || normAxis(dim, rank) !== rank - 1) return original(args);
      const backend = args.backend as unknown as WasmBackend;
      const out = backend.makeOutput([...logits.shape], 'float32');
      const cols = logits.shape[rank - 1];
      addon.softmax(heapView(backend, logits), heapView(backend, out), size(logits.shape) / cols, cols);
      return out;
    };
}
