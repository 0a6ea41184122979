import * as tf from '@tensorflow/tfjs-core';
import { KIND, type Buf, type Kind, type NdAddon } from './ndAddon.js';

/** What the backend keeps per tensor data id. */
export interface NativeData {
  buf: Buf;
  /** Storage kind: float32 tensors may be stored in 16 bits (frozen weights). */
  kind: Kind;
  dtype: tf.DataType;
  refCount: number;
}

let nextId = 0;

/**
 * A tfjs backend whose tensors live in native memory (the addon's buffers): no 4 GB limit, and
 * weights may stay 16-bit or be views of memory-mapped files. Every kernel the engine uses is
 * registered for it (kernels/*.ts); values cross into JavaScript only when read.
 */
export class NativeBackend extends tf.KernelBackend {
  readonly data: tf.DataStorage<NativeData>;

  constructor(readonly nd: NdAddon) {
    super();
    this.data = new tf.DataStorage<NativeData>(this, tf.engine());
  }

  override write(values: tf.BackendValues, shape: number[], dtype: tf.DataType): tf.DataId {
    const dataId = { id: nextId++ };
    this.data.set(dataId, { ...this.fromValues(values, shape, dtype), refCount: 1 });
    return dataId;
  }

  override move(dataId: tf.DataId, values: tf.BackendValues, shape: number[], dtype: tf.DataType, refCount: number): void {
    this.data.set(dataId, { ...this.fromValues(values, shape, dtype), refCount });
  }

  private fromValues(values: tf.BackendValues, shape: number[], dtype: tf.DataType): Omit<NativeData, 'refCount'> {
    if (dtype === 'string' || dtype === 'complex64') throw new Error(`the native backend has no ${dtype} tensors`);
    const kind: Kind = dtype === 'float32' ? KIND.f32 : KIND.i32;
    let typed = values as Float32Array | Int32Array | Uint8Array;
    if (typed == null) typed = dtype === 'float32' ? new Float32Array(shapeSize(shape)) : new Int32Array(shapeSize(shape));
    else if (dtype === 'float32' && !(typed instanceof Float32Array)) typed = Float32Array.from(typed);
    else if (dtype === 'int32' && !(typed instanceof Int32Array)) typed = Int32Array.from(typed);
    return { buf: this.nd.bufFromArray(typed, kind), kind, dtype };
  }

  /** Registers a buffer made by a kernel (or a mapped weight) as a new tensor's data. */
  makeOutput(buf: Buf, shape: number[], dtype: tf.DataType, kind: Kind = dtype === 'float32' ? KIND.f32 : KIND.i32): tf.TensorInfo {
    const dataId = { id: nextId++ };
    this.data.set(dataId, { buf, kind, dtype, refCount: 1 });
    return { dataId, shape, dtype };
  }

  /** The same data under another shape (reshape, identity): no copy. */
  share(x: tf.TensorInfo, shape: number[]): tf.TensorInfo {
    this.incRef(x.dataId);
    return { dataId: x.dataId, shape, dtype: x.dtype };
  }

  override readSync(dataId: tf.DataId): tf.BackendValues {
    const d = this.data.get(dataId);
    return this.nd.bufRead(d.buf, d.dtype === 'bool');
  }

  override async read(dataId: tf.DataId): Promise<tf.BackendValues> {
    return this.readSync(dataId);
  }

  override disposeData(dataId: tf.DataId, force = false): boolean {
    if (!this.data.has(dataId)) return true;
    const d = this.data.get(dataId);
    d.refCount--;
    if (!force && d.refCount > 0) return false;
    this.nd.bufFree(d.buf);
    this.data.delete(dataId);
    return true;
  }

  override refCount(dataId: tf.DataId): number {
    return this.data.has(dataId) ? this.data.get(dataId).refCount : 0;
  }

  override incRef(dataId: tf.DataId): void {
    this.data.get(dataId).refCount++;
  }

  override numDataIds(): number {
    return this.data.numDataIds();
  }

  override memory(): { unreliable: boolean; reasons?: string[]; nativeBytes: number; cachedBytes: number; mappedFiles: number } {
    return { unreliable: false, ...this.nd.memory() };
  }

  override floatPrecision(): 32 {
    return 32;
  }

  override epsilon(): number {
    return 1e-7;
  }

  override timerAvailable(): boolean {
    return true;
  }

  override async time(f: () => void): Promise<tf.BackendTimingInfo> {
    const t0 = performance.now();
    f();
    return { kernelMs: performance.now() - t0 };
  }

  override dispose(): void {
    // Tensors are freed as tfjs disposes them; a mapped weight file closes with its last view.
  }
}

export const shapeSize = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);
