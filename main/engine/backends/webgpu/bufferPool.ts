import * as tf from '@tensorflow/tfjs-core';
import { BufferUsage, type GpuBuffer, type GpuDevice } from '../../gpu/gpuTypes.js';
import type { GpuContext } from './gpuContext.js';
import type { BufferManagerLike, TfjsWebGpuInternals } from './tfjsWebGpuInternals.js';

/** GPU memory held by ClawLoop's buffer pool, in bytes. */
export interface GpuMemory {
  /** Held by live tensors (and buffers in flight). */
  inUse: number;
  /** Released and kept for reuse. */
  pooled: number;
  /** The largest inUse + pooled seen since the backend started (or the last resetPeak). */
  peak: number;
}

/**
 * Free buffers kept for reuse, at most max(floor, share · bytes in use). Default floor 256 MiB
 * (CLAWLOOP_GPU_POOL_MB), share 25 %. Beyond that, the longest-unused free buffers are destroyed.
 */
function poolCap(inUse: number): number {
  const mb = Number(process.env.CLAWLOOP_GPU_POOL_MB ?? 256);
  const floor = Number.isFinite(mb) && mb >= 0 ? mb * 2 ** 20 : 256 * 2 ** 20;
  return Math.max(floor, 0.25 * inUse);
}

/**
 * Rounds a request up to a size class, so that tensors of nearby sizes (a KV cache one token
 * longer each step) share buffers: powers of two up to 64 KiB, then eighths of a power of two
 * (at most 12.5 % slack).
 */
export function sizeClass(bytes: number): number {
  if (bytes <= 256) return 256;
  if (bytes <= 65536) return 2 ** Math.ceil(Math.log2(bytes));
  const step = 2 ** (Math.floor(Math.log2(bytes)) - 3);
  return Math.ceil(bytes / step) * step;
}

/**
 * tfjs-backend-webgpu's buffer manager keeps every buffer it ever made (46 GB held for a 2.4 GB
 * model, measured): this one reuses buffers by size class and usage, and destroys the
 * longest-unused free ones once the pool passes its cap. It has the same interface, and replaces
 * the backend's own when the backend starts.
 */
export class BoundedBufferPool implements BufferManagerLike {
  numBytesUsed = 0;
  numBytesAllocated = 0;
  private peak = 0;
  private usedCount = 0;
  private readonly free = new Map<string, GpuBuffer[]>();
  /** Every free buffer, oldest release first. */
  private readonly order = new Set<GpuBuffer>();
  private freeBytes = 0;

  constructor(private readonly device: GpuDevice) {}

  /** Replaces the backend's buffer manager, and makes reads return exactly the tensor's elements. */
  static install(ctx: GpuContext): BoundedBufferPool {
    const b = ctx.backend;
    b.bufferManager.dispose();
    const pool = new BoundedBufferPool(ctx.device);
    b.bufferManager = pool;
    exactReads(b);
    return pool;
  }

  acquireBuffer(size: number, usage: number, mappedAtCreation = false, reuse = true): GpuBuffer {
    // Never round a buffer that fits one binding past the binding limit (tfjs binds whole buffers).
    const bytes = Math.max(size, Math.min(sizeClass(size), this.device.limits.maxStorageBufferBindingSize));
    const key = `${bytes}_${usage}`;
    // A reused buffer is not mapped: tfjs then uploads through a staging buffer.
    let buffer = reuse ? this.free.get(key)?.pop() : undefined;
    if (buffer) {
      this.order.delete(buffer);
      this.freeBytes -= bytes;
    } else {
      buffer = this.device.createBuffer({ size: bytes, usage, mappedAtCreation });
      this.numBytesAllocated += bytes;
      this.peak = Math.max(this.peak, this.numBytesAllocated);
    }
    this.usedCount++;
    this.numBytesUsed += bytes;
    return buffer;
  }

  releaseBuffer(buffer: GpuBuffer, reuse = true): void {
    this.usedCount--;
    this.numBytesUsed -= buffer.size;
    // Mappable buffers are reused too (staging for reads); a write-staging buffer is left mapped-out.
    if (!reuse || buffer.usage & BufferUsage.MAP_WRITE) {
      this.destroy(buffer);
      return;
    }
    const key = `${buffer.size}_${buffer.usage}`;
    let list = this.free.get(key);
    if (!list) this.free.set(key, (list = []));
    list.push(buffer);
    this.order.add(buffer);
    this.freeBytes += buffer.size;
    this.trim();
  }

  private trim(): void {
    const cap = poolCap(this.numBytesUsed);
    for (const oldest of this.order) {
      if (this.freeBytes <= cap) break;
      this.order.delete(oldest);
      const list = this.free.get(`${oldest.size}_${oldest.usage}`)!;
      list.splice(list.indexOf(oldest), 1);
      this.freeBytes -= oldest.size;
      this.destroy(oldest);
    }
  }

  private destroy(buffer: GpuBuffer): void {
    this.numBytesAllocated -= buffer.size;
    buffer.destroy();
  }

  getNumUsedBuffers(): number {
    return this.usedCount;
  }

  getNumFreeBuffers(): number {
    return this.order.size;
  }

  memory(): GpuMemory {
    return { inUse: this.numBytesUsed, pooled: this.freeBytes, peak: this.peak };
  }

  resetPeak(): void {
    this.peak = this.numBytesAllocated;
  }

  /** Destroys every free buffer (live tensors keep theirs). */
  releaseFree(): void {
    for (const b of this.order) this.destroy(b);
    this.order.clear();
    this.free.clear();
    this.freeBytes = 0;
  }

  dispose(): void {
    this.releaseFree();
  }
}

/**
 * Buffers come in size classes, so a read returns more elements than the tensor has: trim them
 * (tfjs caches what `read` returns as the tensor's values).
 */
function exactReads(b: TfjsWebGpuInternals): void {
  const read = b.read.bind(b);
  b.read = async (dataId: object) => {
    const values = (await read(dataId)) as tf.backend_util.TypedArray;
    const data = b.tensorMap.get(dataId);
    const n = tf.util.sizeFromShape(data.shape);
    if (ArrayBuffer.isView(values) && values.length > n) {
      data.values = values.slice(0, n);
      return data.values as tf.backend_util.BackendValues;
    }
    return values;
  };
}
