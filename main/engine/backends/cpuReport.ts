import os from 'node:os';
import { defaultBackendName } from './backend.js';
import { loadNativeAddon, nativeLoadError } from './nativeAddon.js';

/** What `clawloop doctor` shows about the CPU backends. */
export interface CpuReport {
  cpu: string;
  cores: number;
  /** The backend used when none is named: CLAWLOOP_BACKEND, else native where the addon loads, else wasm. */
  defaultBackend: string;
  /** The native addon (the native backend's kernels), or why it does not load. */
  native: { loaded: true; blas: string; threads: number } | { loaded: false; reason: string };
}

export function cpuReport(): CpuReport {
  const addon = loadNativeAddon();
  const info = addon?.info();
  let defaultBackend: string;
  try {
    defaultBackend = defaultBackendName();
  } catch (err) {
    defaultBackend = `invalid: ${(err as Error).message}`;
  }
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    defaultBackend,
    native: info ? { loaded: true, blas: info.blas, threads: info.threads } : { loaded: false, reason: nativeLoadError() ?? 'unknown' },
  };
}
