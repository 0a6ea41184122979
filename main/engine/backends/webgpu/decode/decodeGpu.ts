import { BufferUsage, type GpuBuffer, type GpuCommandEncoder, type GpuComputePipeline, type GpuDevice } from '../../../gpu/gpuTypes.js';

/*
 * The raw WebGPU calls the decoder makes beyond gpuTypes' minimal interfaces (copies and
 * mapping), and its compiled pipelines, cached per device by their WGSL.
 */

/** A buffer the host maps to read. */
export interface MappableBuffer extends GpuBuffer {
  mapAsync(mode: number): Promise<void>;
  getMappedRange(offset?: number, size?: number): ArrayBuffer;
  unmap(): void;
}

/** A command encoder that also copies between buffers. */
export interface CopyingEncoder extends GpuCommandEncoder {
  copyBufferToBuffer(src: GpuBuffer, srcOffset: number, dst: GpuBuffer, dstOffset: number, size: number): void;
}

/** GPUMapMode.READ. */
export const MAP_READ = 1;

/** Usage of the decoder's own storage buffers (written by kernels and by the host). */
export const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;

const pipelines = new WeakMap<GpuDevice, Map<string, GpuComputePipeline>>();

/** The compute pipeline of a WGSL module (entry point `main`), compiled once per device. */
export function pipelineFor(device: GpuDevice, code: string, label: string): GpuComputePipeline {
  let byCode = pipelines.get(device);
  if (!byCode) pipelines.set(device, (byCode = new Map()));
  let p = byCode.get(code);
  if (!p) {
    const module = device.createShaderModule({ code, label });
    p = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' }, label });
    byCode.set(code, p);
  }
  return p;
}

/** A storage buffer of at least `bytes` (rounded up to 16), holding `data` when given. */
export function storageBuffer(device: GpuDevice, bytes: number, data?: ArrayBufferView): GpuBuffer {
  const b = device.createBuffer({ size: Math.max(16, Math.ceil(bytes / 16) * 16), usage: STORAGE });
  if (data) device.queue.writeBuffer(b, 0, data);
  return b;
}

/** A buffer the host reads `bytes` of after copying into it. */
export function stagingBuffer(device: GpuDevice, bytes: number): MappableBuffer {
  return device.createBuffer({
    size: Math.max(16, Math.ceil(bytes / 16) * 16),
    usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
  }) as MappableBuffer;
}

/** Maps `staging`, copies out its first `bytes`, and unmaps it. */
export async function readStaging(staging: MappableBuffer, bytes: number): Promise<ArrayBuffer> {
  await staging.mapAsync(MAP_READ);
  const out = staging.getMappedRange(0, Math.max(16, Math.ceil(bytes / 16) * 16)).slice(0, bytes);
  staging.unmap();
  return out;
}

/** One recorded dispatch: a pipeline, its bind group (made once), and its workgroup count. */
export interface Dispatch {
  pipeline: GpuComputePipeline;
  group: unknown;
  workgroups: [number, number, number];
}

/** A buffer to bind: whole, or its first `size` bytes (a pooled tfjs buffer may be larger than its tensor). */
export type Binding = GpuBuffer | { buffer: GpuBuffer; size: number };

/** A dispatch whose bind group binds `buffers` at 0, 1, 2, … in order. */
export function dispatchOf(
  device: GpuDevice,
  code: string,
  label: string,
  buffers: Binding[],
  workgroups: [number, number, number],
): Dispatch {
  const pipeline = pipelineFor(device, code, label);
  const entries = buffers.map((b, binding) => ({
    binding,
    resource: 'buffer' in b ? { buffer: b.buffer, offset: 0, size: b.size } : { buffer: b },
  }));
  return { pipeline, group: device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries }), workgroups };
}
