import type * as tf from '@tensorflow/tfjs-core';
import type { GpuBuffer, GpuCommandEncoder, GpuComputePass, GpuDevice } from '../../gpu/gpuTypes.js';

/**
 * The members of tfjs-backend-webgpu's WebGPUBackend (4.22) that ClawLoop's kernels use to record
 * into the same command stream as tfjs's own kernels: its command encoder and compute pass, its
 * buffer manager and tensor storage, and the sets that defer releasing a buffer until the commands
 * that use it are submitted. TypeScript marks several private; they are plain fields at run time.
 * Pinned by the exact version in package.json, and exercised by every GPU test.
 */
export interface TensorData {
  resource?: GpuBuffer | null;
  values?: unknown;
  dtype: tf.DataType;
  shape: number[];
  refCount: number;
}

export interface BufferManagerLike {
  numBytesUsed: number;
  numBytesAllocated: number;
  acquireBuffer(size: number, usage: number, mappedAtCreation?: boolean, reuse?: boolean): GpuBuffer;
  releaseBuffer(buffer: GpuBuffer, reuse?: boolean): void;
  getNumUsedBuffers(): number;
  getNumFreeBuffers(): number;
  dispose(): void;
}

export interface TfjsWebGpuInternals extends tf.KernelBackend {
  device: GpuDevice;
  bufferManager: BufferManagerLike;
  tensorMap: { get(dataId: object): TensorData; has(dataId: object): boolean };
  commandEncoder: GpuCommandEncoder | null;
  computePassEncoder: GpuComputePass | null;
  commandQueueOwnedIds: WeakSet<object>;
  uniformPendingDisposal: GpuBuffer[];
  dispatchCountInPass: number;
  uploadToGPU(dataId: object): void;
  makeTensorInfo(shape: number[], dtype: tf.DataType, values?: tf.backend_util.BackendValues): tf.TensorInfo;
  ensureCommandEncoderReady(): void;
  endComputePassEncoder(): void;
  submitQueue(): void;
  disposeData(dataId: object, force?: boolean): boolean;
}
