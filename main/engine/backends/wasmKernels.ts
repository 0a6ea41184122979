import * as tf from '@tensorflow/tfjs-core';
import type { BroadcastMode, NativeAddon, UnaryOp, Words } from './nativeAddon.js';

/** The parts of tfjs-wasm's backend object native kernels touch. */
interface WasmBackend {
  wasm: { HEAPF32: Float32Array };
  incRef(dataId: object): void;
  dataIdMap: { get(dataId: object): { memoryOffset: number; shape: number[] } | undefined };
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
}

/** A Float32Array view of a tensor's data inside the wasm heap (no copy). Valid until the next allocation. */
export function heapView(backend: WasmBackend, t: tf.TensorInfo): Float32Array {
  const entry = backend.dataIdMap.get(t.dataId);
  if (!entry) throw new Error('native kernel: tensor data is not in the wasm heap (disposed?)');
  const size = t.shape.reduce((a, b) => a * b, 1);
  return new Float32Array(backend.wasm.HEAPF32.buffer, entry.memoryOffset, size);
}

const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** A view of a float32 or int32 tensor's words in the wasm heap (no copy). */
function wordsView(backend: WasmBackend, t: tf.TensorInfo): Words {
  const f = heapView(backend, t);
  return t.dtype === 'int32' ? new Int32Array(f.buffer, f.byteOffset, f.length) : f;
}

const FOUR_BYTES: ReadonlySet<string> = new Set(['float32', 'int32']);

const normAxis = (axis: number, rank: number) => (axis < 0 ? axis + rank : axis);

interface Registered {
  kernelName: string;
  original: tf.KernelConfig | undefined;
}

const registered: Registered[] = [];

function replaceKernel(kernelName: string, kernelFunc: (original: tf.KernelFunc) => tf.KernelFunc): void {
  const original = tf.getKernel(kernelName, 'wasm');
  if (!original) throw new Error(`tfjs-wasm has no '${kernelName}' kernel to replace`);
  tf.unregisterKernel(kernelName, 'wasm');
  tf.registerKernel({ ...original, kernelFunc: kernelFunc(original.kernelFunc) });
  registered.push({ kernelName, original });
}

/**
 * BatchMatMul on native BLAS, reading and writing the wasm heap in place. Batch shapes must match
 * or one side must have a single matrix (broadcast); anything else goes to tfjs's own kernel.
 */
function batchMatMul(addon: NativeAddon) {
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

/** Tile (and so broadcastTo) for 4-byte dtypes, by block copies. */
function tile(addon: NativeAddon) {
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
function identity() {
  return (original: tf.KernelFunc): tf.KernelFunc =>
    (args) => {
      const { x } = args.inputs as { x: tf.TensorInfo };
      if (x.dtype === 'string') return original(args);
      (args.backend as unknown as WasmBackend).incRef(x.dataId);
      return { dataId: x.dataId, shape: [...x.shape], dtype: x.dtype };
    };
}

/** Gather along an axis (batchDims 0): one memcpy per row. */
function gatherV2(addon: NativeAddon) {
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
function concat(addon: NativeAddon) {
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
function splitV(addon: NativeAddon) {
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

/** Element-wise maps (Exp, Sigmoid, Square, Sqrt, Rsqrt, Neg), threaded. */
function unaryKernel(addon: NativeAddon, op: UnaryOp) {
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

/**
 * How two shapes broadcast, as one of the addon's patterns over [rows, cols]; null for any other
 * pattern (tfjs's kernel handles those).
 */
export function broadcastPlan(
  a: readonly number[],
  b: readonly number[],
): { mode: BroadcastMode; rows: number; cols: number; shape: number[] } | null {
  const rank = Math.max(a.length, b.length);
  const pa = [...new Array<number>(rank - a.length).fill(1), ...a];
  const pb = [...new Array<number>(rank - b.length).fill(1), ...b];
  const shape: number[] = [];
  for (let i = 0; i < rank; i++) {
    if (pa[i] !== pb[i] && pa[i] !== 1 && pb[i] !== 1) return null;
    shape.push(Math.max(pa[i], pb[i]));
  }
  const n = size(shape);
  const sa = size(pa);
  const sb = size(pb);
  if (n === 0) return null;
  if (sa === n && sb === n) return { mode: 0, rows: 1, cols: n, shape };
  // One side is full size; the other a scalar, a trailing block (row) or a leading block (column).
  const small = (p: number[], full: 'a' | 'b'): { mode: BroadcastMode; rows: number; cols: number } | null => {
    const s = size(p);
    if (s === 1) return { mode: full === 'a' ? 1 : 2, rows: 1, cols: n };
    const first = p.findIndex((d) => d !== 1);
    let last = p.length - 1;
    while (p[last] === 1) last--;
    const eq = (from: number, to: number) => p.slice(from, to).every((d, i) => d === shape[from + i]);
    if (eq(first, rank)) return { mode: full === 'a' ? 3 : 4, rows: n / s, cols: s };
    if (eq(0, last + 1)) return { mode: full === 'a' ? 5 : 6, rows: s, cols: n / s };
    return null;
  };
  const plan = sa === n ? small(pb, 'a') : sb === n ? small(pa, 'b') : null;
  return plan ? { ...plan, shape } : null;
}

/** Add, Sub, Multiply and RealDiv on float32 for the common broadcast patterns, threaded. */
function binaryKernel(addon: NativeAddon, op: 0 | 1 | 2 | 3) {
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
function sumKernel(addon: NativeAddon) {
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
function softmaxKernel(addon: NativeAddon) {
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

/** Routes tfjs-wasm kernels to the native addon. Idempotent. */
export function registerNativeWasmKernels(addon: NativeAddon): void {
  if (registered.length) return;
  replaceKernel('BatchMatMul', batchMatMul(addon));
  replaceKernel('Tile', tile(addon));
  replaceKernel('Identity', identity());
  replaceKernel('GatherV2', gatherV2(addon));
  replaceKernel('Concat', concat(addon));
  replaceKernel('SplitV', splitV(addon));
  replaceKernel('Exp', unaryKernel(addon, 0));
  replaceKernel('Sigmoid', unaryKernel(addon, 1));
  replaceKernel('Square', unaryKernel(addon, 2));
  replaceKernel('Sqrt', unaryKernel(addon, 3));
  replaceKernel('Rsqrt', unaryKernel(addon, 4));
  replaceKernel('Neg', unaryKernel(addon, 5));
  replaceKernel('Add', binaryKernel(addon, 0));
  replaceKernel('Sub', binaryKernel(addon, 1));
  replaceKernel('Multiply', binaryKernel(addon, 2));
  replaceKernel('RealDiv', binaryKernel(addon, 3));
  replaceKernel('Sum', sumKernel(addon));
  replaceKernel('Softmax', softmaxKernel(addon));
}

/**
 * True when transposed matmuls cost no more than plain ones: native BLAS serves the wasm backend.
 * Gradients then pass transpose flags instead of materialising transposes.
 */
export function fastTransposedMatmul(): boolean {
  return registered.length > 0 && tf.getBackend() === 'wasm';
}

/** Puts tfjs-wasm's own kernels back (used to compare both paths in one process). */
export function unregisterNativeWasmKernels(): void {
  for (const r of registered.splice(0).reverse()) {
    tf.unregisterKernel(r.kernelName, 'wasm');
    if (r.original) tf.registerKernel(r.original);
  }
}

export function nativeWasmKernelsActive(): boolean {
  return registered.length > 0;
}
