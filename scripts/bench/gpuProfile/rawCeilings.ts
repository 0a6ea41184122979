import * as tf from '@tensorflow/tfjs-core';
import type { GpuContext } from '../../../main/engine/backends/webgpu/gpuContext.js';
import { BufferUsage, type GpuBuffer, type GpuDevice } from '../../../main/engine/gpu/gpuTypes.js';
import type { GpuRecorder } from './gpuRecorder.js';

/*
 * Ceilings measured in raw WGSL on the engine's device, outside tfjs: read bandwidth over one
 * large buffer, and what an empty dispatch costs on the GPU and on the CPU (through the raw API,
 * through ClawLoop's kernel layer, and through a tfjs op).
 */

/** Sums its slice of a vec4 buffer (a grid-stride loop) and writes one value per invocation. */
const READ_WGSL = `
struct U { n4: u32, threads: u32 };
@group(0) @binding(0) var<storage, read> X: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> Y: array<f32>;
@group(0) @binding(2) var<uniform> u: U;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  var acc = vec4<f32>(0.0);
  for (var i = g.x; i < u.n4; i += u.threads) { acc += X[i]; }
  Y[g.x] = acc.x + acc.y + acc.z + acc.w;
}`;

const EMPTY_WGSL = `@compute @workgroup_size(1) fn main() {}`;

type Raw = GpuDevice & {
  queue: GpuDevice['queue'] & { onSubmittedWorkDone(): Promise<void> };
  createQuerySet(desc: object): { destroy(): void };
};

function pipeline(device: GpuDevice, code: string, label: string) {
  return device.createComputePipeline({
    layout: 'auto',
    compute: { module: device.createShaderModule({ code, label }), entryPoint: 'main' },
    label,
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export interface ReadBandwidth {
  bytes: number;
  gpuGBs: number;
  wallGBs: number;
}

/** Read bandwidth over a buffer of `bytes` (capped by the binding limit), best of `reps`. */
export async function readBandwidth(ctx: GpuContext, rec: GpuRecorder, bytes: number, reps = 5): Promise<ReadBandwidth> {
  const d = ctx.device as Raw;
  const size = Math.floor(Math.min(bytes, d.limits.maxStorageBufferBindingSize, d.limits.maxBufferSize) / 256) * 256;
  const threads = 256 * Math.min(4096, d.limits.maxComputeWorkgroupsPerDimension);
  const x = d.createBuffer({ size, usage: BufferUsage.STORAGE });
  const y = d.createBuffer({ size: threads * 4, usage: BufferUsage.STORAGE });
  const u = d.createBuffer({ size: 16, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
  d.queue.writeBuffer(u, 0, new Uint32Array([size / 16, threads, 0, 0]));
  const p = pipeline(d, READ_WGSL, 'ceiling_read');
  const group = d.createBindGroup({
    layout: p.getBindGroupLayout(0),
    entries: [x, y, u].map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  const gpu: number[] = [];
  const wall: number[] = [];
  try {
    for (let r = 0; r <= reps; r++) {
      rec.reset();
      const t0 = performance.now();
      const enc = d.createCommandEncoder();
      const pass = enc.beginComputePass();
      pass.setPipeline(p);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(threads / 256);
      pass.end();
      d.queue.submit([enc.finish()]);
      await d.queue.onSubmittedWorkDone();
      const ms = performance.now() - t0;
      const [rcd] = await rec.collect();
      if (r === 0) continue; // the first run compiles and touches the pages
      wall.push(ms / 1000);
      if (rcd && rcd.ns > 0) gpu.push(rcd.ns / 1e9);
    }
  } finally {
    for (const b of [x, y, u] as GpuBuffer[]) b.destroy();
  }
  const best = (xs: number[]) => (xs.length ? size / Math.min(...xs) / 1e9 : NaN);
  return { bytes: size, gpuGBs: best(gpu), wallGBs: best(wall) };
}

export interface DispatchCost {
  /** GPU time of one empty dispatch in its own timed pass, µs (NaN without timestamp queries). */
  gpuUs: number;
  /** CPU µs per empty dispatch recorded through the raw API, n of them in one submit. */
  rawUs: number;
  /** CPU µs for one dispatch submitted alone and waited for (the round trip). */
  roundTripUs: number;
  /** CPU µs per dispatch through ClawLoop's kernel layer (GpuContext.run), tfjs's encoder. */
  engineUs: number;
  /** CPU µs per tfjs op (an add of two 4-element tensors). */
  tfjsUs: number;
}

/** What an empty dispatch costs, `n` times each way. */
export async function dispatchCost(ctx: GpuContext, rec: GpuRecorder, n: number): Promise<DispatchCost> {
  const d = ctx.device as Raw;
  const p = pipeline(d, EMPTY_WGSL, 'ceiling_empty');
  const group = d.createBindGroup({ layout: p.getBindGroupLayout(0), entries: [] });
  const record = (count: number) => {
    const enc = d.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(p);
    pass.setBindGroup(0, group);
    for (let i = 0; i < count; i++) pass.dispatchWorkgroups(1);
    pass.end();
    d.queue.submit([enc.finish()]);
    return d.queue.onSubmittedWorkDone();
  };
  await record(1);
  rec.reset();
  let t0 = performance.now();
  await record(n);
  const rawUs = ((performance.now() - t0) * 1000) / n;
  const gpuNs = (await rec.collect()).map((r) => r.ns).filter(Number.isFinite);
  const trips: number[] = [];
  for (let i = 0; i < Math.min(n, 50); i++) {
    t0 = performance.now();
    await record(1);
    trips.push((performance.now() - t0) * 1000);
  }
  return {
    gpuUs: gpuNs.length ? median(gpuNs) / 1000 : NaN,
    rawUs,
    roundTripUs: median(trips),
    engineUs: await engineCost(ctx, n),
    tfjsUs: await tfjsCost(n),
  };
}

/** CPU µs per dispatch of a one-element kernel through GpuContext.run. */
async function engineCost(ctx: GpuContext, n: number): Promise<number> {
  const one = tf.tensor1d([1]);
  const call = (x: tf.TensorInfo) =>
    ctx.run({
      key: 'ceiling_engine_copy',
      code: () => `@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read_write> Y: array<f32>;
@compute @workgroup_size(1) fn main() { Y[0] = X[0]; }`,
      workgroups: [1, 1, 1],
      inputs: [x],
      outputs: [{ shape: [1], dtype: 'float32' }],
    })[0];
  const run = async (count: number) => {
    const outs: tf.TensorInfo[] = [];
    for (let i = 0; i < count; i++) outs.push(call(one));
    const last = tf.engine().makeTensorFromTensorInfo(outs.pop()!);
    await last.data();
    last.dispose();
    for (const o of outs) ctx.backend.disposeData(o.dataId);
  };
  await run(2);
  const t0 = performance.now();
  await run(n);
  one.dispose();
  return ((performance.now() - t0) * 1000) / n;
}

/** CPU µs per tfjs op (tf.add of two tiny tensors), read once at the end. */
async function tfjsCost(n: number): Promise<number> {
  const a = tf.tensor1d([1, 2, 3, 4]);
  const run = async (count: number) => {
    let x: tf.Tensor = a;
    for (let i = 0; i < count; i++) {
      const y = tf.add(x, a);
      if (x !== a) x.dispose();
      x = y;
    }
    await x.data();
    x.dispose();
  };
  await run(2);
  const t0 = performance.now();
  await run(n);
  a.dispose();
  return ((performance.now() - t0) * 1000) / n;
}
