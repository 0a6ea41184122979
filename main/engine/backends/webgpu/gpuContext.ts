import * as tf from '@tensorflow/tfjs-core';
import { kernelFeatures } from '../../gpu/features.js';
import { BufferUsage, type GpuAdapterInfo, type GpuComputePipeline, type GpuDevice } from '../../gpu/gpuTypes.js';
import type { TfjsWebGpuInternals } from './tfjsWebGpuInternals.js';

/** One dispatch of a WGSL kernel: bindings are inputs, then outputs, then the uniform block. */
export interface KernelCall {
  /** Names the compiled pipeline: equal keys must mean equal WGSL. */
  key: string;
  /** The whole WGSL module (its entry point is `main`); called once per key. */
  code: () => string;
  workgroups: [number, number, number];
  inputs: tf.TensorInfo[];
  /** New tensors to write, or existing ones to overwrite in place (never one of the inputs). */
  outputs: Array<{ shape: number[]; dtype: tf.DataType } | tf.TensorInfo>;
  /** The uniform block's bytes (little-endian, laid out as the WGSL struct). Omit for none. */
  uniforms?: ArrayBuffer;
}

/** Whether the kernels may use an optional feature: offered by the device and not turned off. */
export interface KernelFeatures {
  subgroups: boolean;
  shaderF16: boolean;
  subgroupMatrix: boolean;
}

/**
 * ClawLoop's device layer over tfjs-backend-webgpu: compiles WGSL once per key and records
 * dispatches into the backend's own command stream, so they run in order with tfjs's kernels and
 * their buffers are released only after the commands using them are submitted.
 */
export class GpuContext {
  readonly features: KernelFeatures;
  private readonly pipelines = new Map<string, GpuComputePipeline>();
  private readonly reported = new Set<string>();

  constructor(
    readonly device: GpuDevice,
    backend: tf.KernelBackend,
    readonly adapterInfo: GpuAdapterInfo,
  ) {
    this.backend = backend as TfjsWebGpuInternals;
    this.features = kernelFeatures(device.features);
    device.addEventListener?.('uncapturederror', (e) => this.report(e.error.message));
  }

  readonly backend: TfjsWebGpuInternals;

  /** Turns an optional feature off for the kernels (a failed self-check, or an environment switch). */
  disable(feature: keyof KernelFeatures): void {
    (this.features as { -readonly [K in keyof KernelFeatures]: boolean })[feature] = false;
  }

  private report(message: string): void {
    if (this.reported.has(message)) return;
    this.reported.add(message);
    process.stderr.write(`clawloop: webgpu error: ${message}\n`);
  }

  private pipeline(call: KernelCall): GpuComputePipeline {
    let p = this.pipelines.get(call.key);
    if (!p) {
      const module = this.device.createShaderModule({ code: call.code(), label: call.key });
      p = this.device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' }, label: call.key });
      this.pipelines.set(call.key, p);
    }
    return p;
  }

  /** Records one dispatch; returns the outputs (new tensors, or the ones given). */
  run(call: KernelCall): tf.TensorInfo[] {
    const b = this.backend;
    const outputs = call.outputs.map((o) => ('dataId' in o ? o : b.makeTensorInfo(o.shape, o.dtype)));
    const all = [...call.inputs, ...outputs];
    for (const t of all) b.uploadToGPU(t.dataId);
    const entries = all.map((t, i) => ({ binding: i, resource: { buffer: b.tensorMap.get(t.dataId).resource! } }));
    if (call.uniforms) {
      const size = Math.max(16, Math.ceil(call.uniforms.byteLength / 16) * 16);
      const ub = b.bufferManager.acquireBuffer(size, BufferUsage.COPY_DST | BufferUsage.UNIFORM);
      b.device.queue.writeBuffer(ub, 0, call.uniforms);
      b.uniformPendingDisposal.push(ub);
      entries.push({ binding: all.length, resource: { buffer: ub } });
    }
    for (const t of all) b.commandQueueOwnedIds.add(t.dataId);
    const pipeline = this.pipeline(call);
    const group = this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    b.ensureCommandEncoderReady();
    b.computePassEncoder ??= b.commandEncoder!.beginComputePass({});
    b.computePassEncoder.setPipeline(pipeline);
    b.computePassEncoder.setBindGroup(0, group);
    b.computePassEncoder.dispatchWorkgroups(...call.workgroups);
    b.dispatchCountInPass++;
    if (b.dispatchCountInPass >= (tf.env().get('WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE') as number)) {
      b.endComputePassEncoder();
      b.submitQueue();
    }
    return outputs;
  }

  /** Largest number of workgroups per dispatch dimension. */
  get maxWorkgroups(): number {
    return this.device.limits.maxComputeWorkgroupsPerDimension;
  }
}

let current: GpuContext | null = null;

export function setGpuContext(ctx: GpuContext): void {
  current = ctx;
}

/** The context of the active 'webgpu' backend, or null when another backend is active. */
export function gpuContext(): GpuContext | null {
  if (!current || tf.getBackend() !== 'webgpu') return null;
  return current;
}

/** The context that owns `backend` (the kernel functions receive it). */
export function contextOf(backend: unknown): GpuContext {
  if (!current || current.backend !== backend) throw new Error('webgpu: a ClawLoop kernel ran on a backend it was not set up for');
  return current;
}
