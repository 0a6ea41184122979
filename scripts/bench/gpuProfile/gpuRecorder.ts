import * as tf from '@tensorflow/tfjs-core';
import type { GpuBuffer, GpuDevice } from '../../../main/engine/gpu/gpuTypes.js';

/*
 * Watches every WebGPU call a device makes (tfjs's and ClawLoop's alike): counts dispatches,
 * submits, writes and readback bytes, and, where the device has `timestamp-query`, times each
 * dispatch on the GPU by giving it a compute pass of its own with timestamp writes. Each dispatch
 * is tagged with the tfjs op that recorded it (the op wrappers below set the tag), so kernels can
 * be grouped by op, shape and pipeline.
 */

/** The tfjs op that recorded a dispatch, and what it computes. */
export interface OpTag {
  /** tfjs kernel name and shapes, e.g. "BatchMatMul [4096,2560]·[2560,9728]". */
  name: string;
  /** Floating-point operations of the whole op (0 when not a product). */
  flops: number;
  /** Bytes the op reads (its inputs, as stored on the GPU). */
  bytes: number;
  /** Whether a dimension of the op is the vocabulary (embedding, LM head, loss). */
  head: boolean;
}

export interface DispatchRecord {
  tag: OpTag;
  /** The pipeline's label (ClawLoop's kernel key, or tfjs's program class). */
  pipeline: string;
  /** GPU nanoseconds, once collected (NaN without timestamp queries). */
  ns: number;
  /** Dispatches of the same op share its flops/bytes: this one's share. */
  share: number;
}

export interface Counts {
  dispatches: number;
  submits: number;
  /** queue.writeBuffer calls (uniforms, small uploads) and their bytes. */
  writes: number;
  writeBytes: number;
  /** Buffers created mapped (tfjs's upload staging: one per uploaded tensor or JS constant) and their bytes. */
  staging: number;
  stagingBytes: number;
  readbackBytes: number;
}

const QUERIES_PER_SET = 4096;
/** At most this many timed dispatches per phase (2,048 per query set); later ones are counted only. */
const MAX_SETS = 64;
const NO_TAG: OpTag = { name: '(outside a tfjs op)', flops: 0, bytes: 0, head: false };

interface Slot {
  set: number;
  index: number;
  record: DispatchRecord;
}

type AnyFn = (...args: never[]) => unknown;
type Patchable = Record<string, AnyFn>;

export class GpuRecorder {
  readonly timestamps: boolean;
  counts: Counts = zeroCounts();
  records: DispatchRecord[] = [];
  private tags: OpTag[] = [];
  private sets: Array<{ query: unknown; resolve: GpuBuffer }> = [];
  private slots: Slot[] = [];
  /** The next free query, counted over all sets. */
  private nextQuery = 0;
  private opDispatches: DispatchRecord[] = [];

  constructor(private readonly device: GpuDevice) {
    this.timestamps = device.features.has('timestamp-query');
    this.patchDevice();
  }

  /** Runs `fn` with `tag` as the op that records dispatches (nested calls keep the outermost). */
  withTag<T>(tag: OpTag, fn: () => T): T {
    const outer = this.tags.length === 0;
    this.tags.push(tag);
    if (outer) this.opDispatches = [];
    try {
      return fn();
    } finally {
      this.tags.pop();
      if (outer) for (const r of this.opDispatches) r.share = 1 / this.opDispatches.length;
    }
  }

  /** Starts a new phase: counters and records from zero. */
  reset(): void {
    this.counts = zeroCounts();
    this.records = [];
    this.slots = [];
    this.nextQuery = 0;
  }

  /** Reads the timestamps of the phase's dispatches (after their commands were submitted). */
  async collect(): Promise<DispatchRecord[]> {
    if (!this.timestamps || this.slots.length === 0) return this.records;
    const counted = { ...this.counts }; // the copies below are the recorder's, not the phase's
    const used = new Set(this.slots.map((s) => s.set));
    const d = this.device as unknown as Patchable & GpuDevice;
    const reads = new Map<number, GpuBuffer>();
    const enc = d.createCommandEncoder() as unknown as Patchable;
    for (const set of used) {
      const read = d.createBuffer({ size: QUERIES_PER_SET * 8, usage: GPUBufferUsage_MAP_READ | GPUBufferUsage_COPY_DST });
      enc.copyBufferToBuffer(...([this.sets[set].resolve, 0, read, 0, QUERIES_PER_SET * 8] as never[]));
      reads.set(set, read);
    }
    d.queue.submit([(enc.finish as () => unknown)()]);
    const values = new Map<number, BigUint64Array>();
    for (const [set, buf] of reads) {
      await (buf as unknown as { mapAsync(mode: number): Promise<void> }).mapAsync(1);
      values.set(set, new BigUint64Array((buf as unknown as { getMappedRange(): ArrayBuffer }).getMappedRange().slice(0)));
      buf.destroy();
    }
    for (const s of this.slots) {
      const v = values.get(s.set)!;
      const ns = Number(v[s.index + 1] - v[s.index]);
      // A zero or wrapped interval (a query the driver did not write) counts as unknown.
      s.record.ns = ns >= 0 && ns < 60e9 ? ns : NaN;
    }
    this.counts = counted;
    return this.records;
  }

  private tag(): OpTag {
    return this.tags[0] ?? NO_TAG;
  }

  /**
   * Two queries for the next timed dispatch. An encoder's first one starts at a multiple of 32
   * queries: resolveQuerySet writes to a 256-byte-aligned offset.
   */
  private nextSlot(encoderStart: boolean): { set: number; index: number } | null {
    if (encoderStart) this.nextQuery = Math.ceil(this.nextQuery / 32) * 32;
    const n = this.nextQuery;
    this.nextQuery += 2;
    const set = Math.floor(n / QUERIES_PER_SET);
    if (set >= MAX_SETS) return null;
    while (this.sets.length <= set) {
      const d = this.device as unknown as { createQuerySet(desc: object): unknown };
      const query = d.createQuerySet({ type: 'timestamp', count: QUERIES_PER_SET });
      const resolve = this.device.createBuffer({
        size: QUERIES_PER_SET * 8,
        usage: GPUBufferUsage_QUERY_RESOLVE | GPUBufferUsage_COPY_SRC,
      });
      this.sets.push({ query, resolve });
    }
    return { set, index: n % QUERIES_PER_SET };
  }

  private patchDevice(): void {
    const d = this.device as unknown as Patchable & { queue: Patchable };
    const createEncoder = d.createCommandEncoder.bind(d);
    d.createCommandEncoder = ((desc?: object) => this.patchEncoder(createEncoder(...([desc] as never[])) as Patchable)) as AnyFn;
    const submit = d.queue.submit.bind(d.queue);
    d.queue.submit = ((cmds: unknown[]) => {
      this.counts.submits++;
      return submit(...([cmds] as never[]));
    }) as AnyFn;
    const write = d.queue.writeBuffer.bind(d.queue);
    d.queue.writeBuffer = ((buf: GpuBuffer, offset: number, data: ArrayBufferView | ArrayBuffer, ...rest: unknown[]) => {
      this.counts.writes++;
      this.counts.writeBytes += data.byteLength;
      return write(...([buf, offset, data, ...rest] as never[]));
    }) as AnyFn;
    const createBuffer = d.createBuffer.bind(d);
    d.createBuffer = ((desc: { size: number; usage: number; mappedAtCreation?: boolean }) => {
      if (desc.mappedAtCreation) {
        this.counts.staging++;
        this.counts.stagingBytes += desc.size;
      }
      return createBuffer(...([desc] as never[]));
    }) as AnyFn;
  }

  private patchEncoder(enc: Patchable): Patchable {
    const begin = enc.beginComputePass.bind(enc);
    const copy = enc.copyBufferToBuffer.bind(enc);
    const finish = enc.finish.bind(enc);
    /** Per query set, the range of queries this encoder wrote. */
    const resolved = new Map<number, { first: number; end: number }>();
    enc.copyBufferToBuffer = ((src: GpuBuffer, so: number, dst: GpuBuffer, dO: number, size: number) => {
      if (dst.usage & GPUBufferUsage_MAP_READ) this.counts.readbackBytes += size ?? src.size;
      return copy(...([src, so, dst, dO, size] as never[]));
    }) as AnyFn;
    enc.beginComputePass = ((desc?: object) => this.pass(begin as (d?: object) => Patchable, desc, resolved)) as AnyFn;
    enc.finish = ((...args: unknown[]) => {
      const e = enc as unknown as { resolveQuerySet(q: unknown, first: number, count: number, dst: GpuBuffer, offset: number): void };
      for (const [set, r] of resolved)
        e.resolveQuerySet(this.sets[set].query, r.first, r.end - r.first, this.sets[set].resolve, r.first * 8);
      return finish(...(args as never[]));
    }) as AnyFn;
    return enc;
  }

  /** A compute pass that counts its dispatches and, with timestamps, runs each in a timed pass of its own. */
  private pass(
    begin: (d?: object) => Patchable,
    desc: object | undefined,
    resolved: Map<number, { first: number; end: number }>,
  ): Patchable {
    const state: { pipeline?: unknown; groups: Map<number, unknown[]> } = { groups: new Map() };
    const real = this.timestamps ? null : begin(desc);
    const record = (pipeline: unknown): DispatchRecord => {
      this.counts.dispatches++;
      const r = { tag: this.tag(), pipeline: (pipeline as { label?: string })?.label || '?', ns: NaN, share: 1 };
      this.records.push(r);
      this.opDispatches.push(r);
      return r;
    };
    const fake: Patchable = {
      setPipeline: ((p: unknown) => {
        state.pipeline = p;
        if (real) real.setPipeline(...([p] as never[]));
      }) as AnyFn,
      setBindGroup: ((i: number, ...rest: unknown[]) => {
        state.groups.set(i, rest);
        if (real) real.setBindGroup(...([i, ...rest] as never[]));
      }) as AnyFn,
      dispatchWorkgroups: ((x: number, y = 1, z = 1) => {
        const r = record(state.pipeline);
        if (real) return real.dispatchWorkgroups(...([x, y, z] as never[]));
        const slot = this.nextSlot(resolved.size === 0);
        const timestampWrites = slot && {
          querySet: this.sets[slot.set].query,
          beginningOfPassWriteIndex: slot.index,
          endOfPassWriteIndex: slot.index + 1,
        };
        const p = begin(timestampWrites ? { timestampWrites } : desc);
        p.setPipeline(...([state.pipeline] as never[]));
        for (const [i, rest] of state.groups) p.setBindGroup(...([i, ...rest] as never[]));
        p.dispatchWorkgroups(...([x, y, z] as never[]));
        p.end();
        if (slot) {
          // A reset() while this encoder is open starts the queries at 0 again: cover both.
          const range = resolved.get(slot.set);
          if (range) {
            range.first = Math.min(range.first, slot.index);
            range.end = Math.max(range.end, slot.index + 2);
          } else {
            resolved.set(slot.set, { first: slot.index, end: slot.index + 2 });
          }
          this.slots.push({ ...slot, record: r });
        }
      }) as AnyFn,
      end: (() => real?.end()) as AnyFn,
    };
    return fake;
  }
}

function zeroCounts(): Counts {
  return { dispatches: 0, submits: 0, writes: 0, writeBytes: 0, staging: 0, stagingBytes: 0, readbackBytes: 0 };
}

// WebGPU's GPUBufferUsage bits (the globals exist only once Dawn has loaded).
const GPUBufferUsage_MAP_READ = 0x0001;
const GPUBufferUsage_COPY_SRC = 0x0004;
const GPUBufferUsage_COPY_DST = 0x0008;
const GPUBufferUsage_QUERY_RESOLVE = 0x0200;

/** Wraps every kernel of the 'webgpu' backend so the dispatches it records carry its tag. */
export function tagKernels(
  recorder: GpuRecorder,
  describe: (kernel: string, args: { inputs: tf.NamedTensorInfoMap; attrs?: tf.NamedAttrMap }) => OpTag,
): void {
  for (const k of tf.getKernelsForBackend('webgpu')) {
    const inner = k.kernelFunc;
    tf.unregisterKernel(k.kernelName, 'webgpu');
    tf.registerKernel({ ...k, kernelFunc: (args) => recorder.withTag(describe(k.kernelName, args), () => inner(args)) });
  }
}
