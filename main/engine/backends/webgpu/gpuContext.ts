import * as tf from '@tensorflow/tfjs-core';
import { kernelFeatures } from '../../gpu/features.js';
import { BufferUsage, type GpuAdapterInfo, type GpuComputePipeline, type GpuDevice } from '../../gpu/gpuTypes.js';
import type { TfjsWebGpuInternals } from './tfjsWebGpuInternals.js';
import type { CoopConfig } from './kernels/coopMatmulWgsl.js';

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
  /**
   * Bind only a byte range of some inputs/outputs (by position in inputs ++ outputs): how a kernel
   * reaches a tensor larger than one binding may be. Offsets must be multiples of 256.
   */
  windows?: Map<number, { offset: number; size: number }>;
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
  /** The cooperative-matrix configuration matmuls use, once verified (null: the plain kernels). */
  coop: CoopConfig | null = null;
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
    // A lost device (driver reset, GPU removed) fails every later kernel: say so once, plainly.
    void device.lost.then((info) => {
      if (info.reason !== 'destroyed') this.report(`the GPU device was lost (${info.reason}): ${info.message}. Restart ClawLoop.`);
    });
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
    const converted: tf.TensorInfo[] = [];
    const inputs = call.inputs.map((t) => {
      const f = this.floatStorage(t);
      if (f !== t) converted.push(f);
      return f;
    });
    const outputs = this.dispatch({ ...call, inputs });
    // Released once the commands using them are submitted (they are queue-owned).
    for (const t of converted) b.disposeData(t.dataId);
    return outputs;
  }

  /**
   * tfjs casts int32 and bool tensors to float32 without touching their buffers (the storage keeps
   * its integer type): such an input is converted before a kernel reads it as float32.
   */
  private floatStorage(t: tf.TensorInfo): tf.TensorInfo {
    if (t.dtype !== 'float32') return t;
    const stored = this.backend.tensorMap.get(t.dataId).dtype;
    if (stored === 'float32') return t;
    const n = tf.util.sizeFromShape(t.shape);
    const u = new Uint32Array([n, 0, 0, 0]).buffer;
    return this.dispatch({
      key: 'int_to_float',
      code: () => INT_TO_FLOAT_WGSL,
      workgroups: [Math.min(Math.ceil(n / 256), this.maxWorkgroups), Math.ceil(n / 256 / this.maxWorkgroups), 1],
      inputs: [t],
      outputs: [{ shape: t.shape, dtype: 'float32' }],
      uniforms: u,
    })[0];
  }

  private dispatch(call: KernelCall): tf.TensorInfo[] {
    const b = this.backend;
    const outputs = call.outputs.map((o) => ('dataId' in o ? o : b.makeTensorInfo(o.shape, o.dtype)));
    const all = [...call.inputs, ...outputs];
    for (const t of all) b.uploadToGPU(t.dataId);
    const entries = all.map((t, i) => {
      const w = call.windows?.get(i) ?? { offset: 0, size: Math.max(4, tf.util.sizeFromShape(t.shape) * 4) };
      if (w.size > this.maxBinding) throw bindingTooLarge(call.key, t, w.size, this.maxBinding);
      return { binding: i, resource: { buffer: b.tensorMap.get(t.dataId).resource!, offset: w.offset, size: w.size } };
    });
    if (call.uniforms) {
      const size = Math.max(16, Math.ceil(call.uniforms.byteLength / 16) * 16);
      const ub = b.bufferManager.acquireBuffer(size, BufferUsage.COPY_DST | BufferUsage.UNIFORM);
      b.device.queue.writeBuffer(ub, 0, call.uniforms);
      b.uniformPendingDisposal.push(ub);
      entries.push({ binding: all.length, resource: { buffer: ub, offset: 0, size } });
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

  /**
   * The largest byte range one binding may cover: the device's maxStorageBufferBindingSize, or
   * less with CLAWLOOP_WEBGPU_MAX_BINDING_MB (to exercise the split paths on any adapter).
   */
  get maxBinding(): number {
    const mb = Number(process.env.CLAWLOOP_WEBGPU_MAX_BINDING_MB);
    const device = this.device.limits.maxStorageBufferBindingSize;
    return Number.isFinite(mb) && mb > 0 ? Math.min(device, Math.floor(mb * 2 ** 20)) : device;
  }

  /** Largest number of workgroups per dispatch dimension. */
  get maxWorkgroups(): number {
    return this.device.limits.maxComputeWorkgroupsPerDimension;
  }
}

function bindingTooLarge(key: string, t: tf.TensorInfo, bytes: number, limit: number): Error {
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
  return new Error(
    `webgpu: kernel ${key} would bind ${mib(bytes)} of a [${t.shape}] tensor; this GPU binds at most ${mib(limit)} at once. ` +
      'Use smaller batches (fewer tokens per step), or --backend wasm.',
  );
}

/** An int32 (or bool) buffer's values as float32. */
const INT_TO_FLOAT_WGSL = `
struct U { n: u32 };
@group(0) @binding(0) var<storage, read> X: array<i32>;
@group(0) @binding(1) var<storage, read_write> Y: array<f32>;
@group(0) @binding(2) var<uniform> u: U;
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (wid.x + wid.y * nwg.x) * 256u + lid;
  if (i < u.n) { Y[i] = f32(X[i]); }
}
`;

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
