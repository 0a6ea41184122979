import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NdAddon } from './native/ndAddon.js';

/** The functions of native/build/Release/clawloop_native.node (see native/src/addon.cc). */
export interface NativeAddon {
  /**
   * Sets the process's thread count for BLAS and the native backend's kernels, once: the first call in the
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
 * Threads for the native backend's kernels: `CLAWLOOP_THREADS` when set (a cap, e.g. when serving and training
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
