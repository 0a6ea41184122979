import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Gpu, GpuAdapter } from './gpuTypes.js';

/*
 * Dawn, WebGPU's implementation for Node (the optional `webgpu` package): loading it, and the
 * choice between the best hardware adapter (default) and Mesa's software rasteriser
 * (CLAWLOOP_WEBGPU_ADAPTER=software, for CI machines without a GPU).
 */

/** The install line for the packages the GPU backend needs. */
export const GPU_PACKAGES = 'npm install webgpu @tensorflow/tfjs-backend-webgpu';

/** What `CLAWLOOP_WEBGPU_ADAPTER` asks for: 'hardware' (default) or 'software'. Throws on other values. */
export function adapterChoice(env: NodeJS.ProcessEnv = process.env): 'hardware' | 'software' {
  const raw = env.CLAWLOOP_WEBGPU_ADAPTER?.trim().toLowerCase();
  if (!raw || raw === 'hardware') return 'hardware';
  if (raw === 'software') return 'software';
  throw new Error(`CLAWLOOP_WEBGPU_ADAPTER is '${env.CLAWLOOP_WEBGPU_ADAPTER}'; valid: hardware (default), software`);
}

export class DawnUnavailableError extends Error {
  override name = 'DawnUnavailableError';
}

interface DawnModule {
  create(flags: string[]): Gpu;
  globals: Record<string, unknown>;
}

let loaded: DawnModule | null = null;

/** Loads the `webgpu` package once and installs its globals (GPUBuffer, GPUBufferUsage, …). */
export async function loadDawn(): Promise<DawnModule> {
  if (loaded) return loaded;
  let mod: DawnModule;
  try {
    mod = (await import('webgpu' as string)) as DawnModule;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new DawnUnavailableError(`the 'webgpu' package (Dawn for Node) is not installed. Install it with: ${GPU_PACKAGES}`);
    }
    throw new DawnUnavailableError(`loading the 'webgpu' package failed: ${(err as Error).message.split('\n')[0]}`);
  }
  Object.assign(globalThis, mod.globals);
  loaded = mod;
  return mod;
}

/**
 * Mesa's llvmpipe through Dawn's OpenGL ES backend needs a writable XDG_RUNTIME_DIR and EGL's
 * surfaceless platform (there is no display). They must be in the process's real environment
 * before Dawn loads EGL; a worker thread's process.env is only a copy, so the main thread calls
 * {@link prepareGpuEnvironment} before it starts workers.
 */
function prepareSoftwareEnv(env: NodeJS.ProcessEnv): void {
  env.EGL_PLATFORM ??= 'surfaceless';
  const dir = env.XDG_RUNTIME_DIR;
  let writable = false;
  if (dir) {
    try {
      fs.accessSync(dir, fs.constants.W_OK);
      writable = true;
    } catch {
      writable = false;
    }
  }
  if (!writable) env.XDG_RUNTIME_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-xdg-'));
}

/**
 * Sets the environment the software adapter needs when CLAWLOOP_WEBGPU_ADAPTER=software (else
 * does nothing). Call on the main thread before starting workers that may use the GPU backend.
 */
export function prepareGpuEnvironment(env: NodeJS.ProcessEnv = process.env): void {
  try {
    if (adapterChoice(env) === 'software') prepareSoftwareEnv(env);
  } catch {
    // An invalid CLAWLOOP_WEBGPU_ADAPTER is reported when the backend starts.
  }
}

/** Dawn instance flags for a choice of adapter. */
function dawnFlags(choice: 'hardware' | 'software', extra: readonly string[]): string[] {
  const flags = [...extra];
  if (choice === 'software') flags.push('backend=opengles');
  return flags;
}

/** A GPU instance and its best adapter (null when there is none), for the adapter choice. */
export async function openAdapter(
  opts: { choice?: 'hardware' | 'software'; dawnFlags?: readonly string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<{ gpu: Gpu; adapter: GpuAdapter | null; choice: 'hardware' | 'software' }> {
  const env = opts.env ?? process.env;
  const choice = opts.choice ?? adapterChoice(env);
  if (choice === 'software') prepareSoftwareEnv(env);
  const dawn = await loadDawn();
  const gpu = dawn.create(dawnFlags(choice, opts.dawnFlags ?? []));
  // The software rasteriser is reached through OpenGL ES, which WebGPU offers only at its
  // compatibility feature level.
  const adapter =
    choice === 'software'
      ? await gpu.requestAdapter({ featureLevel: 'compatibility' })
      : await gpu.requestAdapter({ powerPreference: 'high-performance' });
  return { gpu, adapter, choice };
}
