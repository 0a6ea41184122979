import type * as tf from '@tensorflow/tfjs-core';
import type { Words } from './nativeAddon.js';

/** How native kernels see tfjs-wasm's memory: tensors as views into the wasm heap, without copies. */

/** The parts of tfjs-wasm's backend object native kernels touch. */
export interface WasmBackend {
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

export const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** A view of a float32 or int32 tensor's words in the wasm heap (no copy). */
export function wordsView(backend: WasmBackend, t: tf.TensorInfo): Words {
  const f = heapView(backend, t);
  return t.dtype === 'int32' ? new Int32Array(f.buffer, f.byteOffset, f.length) : f;
}

/** Dtypes whose elements are 4-byte words (moved bit for bit by the copy kernels). */
export const FOUR_BYTES: ReadonlySet<string> = new Set(['float32', 'int32']);

/** A possibly negative axis as an index in [0, rank). */
export const normAxis = (axis: number, rank: number) => (axis < 0 ? axis + rank : axis);
