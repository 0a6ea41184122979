import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NdAddon } from './native/ndAddon.js';

/** Element-wise maps of the addon: exp, sigmoid, square, sqrt, rsqrt, neg. */
export type UnaryOp = 0 | 1 | 2 | 3 | 4 | 5;

/**
 * Broadcast patterns of `binary`, for operands viewed as [rows, cols]: 0 same shape, 1 b scalar,
 * 2 a scalar, 3 b is one row [cols], 4 a is one row, 5 b is one column [rows], 6 a is one column.
 */
export type BroadcastMode = 0 | 1 | 2 | 3 | 4 | 5 | 6;

/** A view of 4-byte elements: float32 or int32 data, moved bit for bit. */
export type Words = Float32Array | Int32Array;

/** The functions of native/build/Release/clawloop_native.node (see native/src/addon.cc). */
export interface NativeAddon {
  /** C[i] = op(A[i])·op(B[i]) for i < batch, row-major, in place on the given views. */
  gemm(
    a: Float32Array,
    b: Float32Array,
    c: Float32Array,
    batch: number,
    m: number,
    n: number,
    k: number,
    transA: boolean,
    transB: boolean,
    strideA: number,
    strideB: number,
    strideC: number,
  ): void;
  /** out[o, i, :] = x[o, indices[i], :]; throws a RangeError on an index outside [0, axisSize). */
  gather(x: Words, indices: Int32Array, outer: number, axisSize: number, inner: number, out: Words): void;
  /** For each o < outer, the inputs' blocks (blocks[i] elements) follow one another in out. */
  concat(inputs: Words[], blocks: number[], outer: number, out: Words): void;
  /** The inverse of concat. */
  split(x: Words, outputs: Words[], blocks: number[], outer: number): void;
  /** out = exp(x) (op 0), sigmoid(x) (1), x² (2), √x (3), 1/√x (4) or −x (5). */
  unary(op: UnaryOp, x: Float32Array, out: Float32Array): void;
  /**
   * out = a op b (op: 0 add, 1 sub, 2 mul, 3 div) for operands viewed as [rows, cols], with one
   * side broadcast as `mode` says (see {@link BroadcastMode}).
   */
  binary(op: 0 | 1 | 2 | 3, mode: BroadcastMode, a: Float32Array, b: Float32Array, out: Float32Array, rows: number, cols: number): void;
  /** out[o, i] = Σ_k x[o, k, i] for x viewed as [outer, axis, inner]. */
  reduceSum(x: Float32Array, out: Float32Array, outer: number, axis: number, inner: number): void;
  /** Softmax over the last axis of x viewed as [rows, cols]. */
  softmax(x: Float32Array, out: Float32Array, rows: number, cols: number): void;
  /** dst = tile(src, reps) for 4-byte elements. */
  tile(src: Float32Array, dst: Float32Array, shape: number[], reps: number[]): void;
  /**
   * Sets the process's thread count for BLAS and the native kernels, once: the first call in the
   * process (from any thread) decides, later calls change nothing. Returns the count in effect.
   */
  initThreads(n: number): number;
  info(): { threads: number; blasThreads: number; hardwareThreads: number; blas: string };
  /** The native tensor backend: storage, mapped weights and its kernels. */
  nd: NdAddon;
}

/** Where the addon is built; in a packaged Electron app it lives outside the asar archive. */
export function addonPath(): string {
  if (process.env.CLAWLOOP_NATIVE_PATH) return process.env.CLAWLOOP_NATIVE_PATH;
  const here = path.dirname(fileURLToPath(import.meta.url)); // dist/main/engine/backends
  const file = path.resolve(here, '..', '..', '..', '..', 'native', 'build', 'Release', 'clawloop_native.node');
  return file.replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`);
}

/**
 * Threads for native kernels: `CLAWLOOP_THREADS` when set (a cap, e.g. when serving and training
 * share the CPU), else the physical cores this process may use (a second hardware thread per core
 * only contends for the same FMA units in these kernels), or every logical CPU when the core
 * count is unknown. The setting is process-wide: the first thread to load the addon applies it
 * (see initThreads), so workers cannot reset one another's.
 */
export function threadCount(env: NodeJS.ProcessEnv = process.env, physicalCores = 0): number {
  const cores = physicalCores > 0 ? Math.min(physicalCores, os.availableParallelism()) : os.availableParallelism();
  const raw = env.CLAWLOOP_THREADS?.trim();
  if (!raw) return cores;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`CLAWLOOP_THREADS is '${raw}'; expected a positive integer`);
  return n;
}

/** False when `CLAWLOOP_NATIVE` is 0/false/off: the engine then runs pure tfjs. */
export function nativeWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CLAWLOOP_NATIVE?.trim().toLowerCase();
  return !(v === '0' || v === 'false' || v === 'off' || v === 'no');
}

let cached: { addon: NativeAddon | null; error: string | null } | null = null;

/**
 * Loads the addon once per thread (the thread count is decided once per process, by the first
 * thread to load it). Returns null (with the reason in `nativeLoadError()`) when it
 * is disabled, not built, or fails to load.
 */
export function loadNativeAddon(): NativeAddon | null {
  if (cached) return cached.addon;
  if (!nativeWanted()) {
    cached = { addon: null, error: 'disabled by CLAWLOOP_NATIVE' };
    return null;
  }
  const file = addonPath();
  if (!fs.existsSync(file)) {
    cached = {
      addon: null,
      error: `${file} is not built: install OpenBLAS (Debian/Ubuntu: apt-get install libopenblas-pthread-dev), then run npm run build:native`,
    };
    return null;
  }
  try {
    const addon = createRequire(import.meta.url)(file) as NativeAddon;
    if (!addon.nd) throw new Error('it was built from older sources (no native backend): run npm run build:native');
    addon.initThreads(threadCount(process.env, addon.nd.cpu().physicalCores));
    cached = { addon, error: null };
  } catch (err) {
    cached = { addon: null, error: `loading ${file} failed: ${(err as Error).message.split('\n')[0]}` };
  }
  return cached.addon;
}

export function nativeLoadError(): string | null {
  loadNativeAddon();
  return cached?.error ?? null;
}
