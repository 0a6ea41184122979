import { BoundedBufferPool, type GpuMemory } from './bufferPool.js';
import { gpuContext } from './gpuContext.js';

export type { GpuMemory };

/** GPU memory held by the active 'webgpu' backend's buffers (null on another backend). */
export function gpuMemory(): GpuMemory | null {
  const pool = gpuContext()?.backend.bufferManager;
  return pool instanceof BoundedBufferPool ? pool.memory() : null;
}

/** Starts a new peak measurement from the memory held now; returns false on another backend. */
export function resetGpuPeak(): boolean {
  const pool = gpuContext()?.backend.bufferManager;
  if (!(pool instanceof BoundedBufferPool)) return false;
  pool.resetPeak();
  return true;
}

/** Destroys the pool's free buffers (live tensors keep theirs); false on another backend. */
export function releaseGpuPool(): boolean {
  const pool = gpuContext()?.backend.bufferManager;
  if (!(pool instanceof BoundedBufferPool)) return false;
  pool.releaseFree();
  return true;
}
