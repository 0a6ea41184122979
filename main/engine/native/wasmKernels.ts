import * as tf from '@tensorflow/tfjs-core';
import type { NativeAddon } from './nativeAddon.js';

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

/** Routes tfjs-wasm kernels to the native addon. Idempotent. */
export function registerNativeWasmKernels(addon: NativeAddon): void {
  if (registered.length) return;
  replaceKernel('BatchMatMul', batchMatMul(addon));
  replaceKernel('Tile', tile(addon));
  replaceKernel('Identity', identity());
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
