import * as tf from '@tensorflow/tfjs-core';
import { BACKENDS } from '../../protocol/app.js';
import '../training/gradients.js';
import { loadNativeAddon, nativeLoadError, nativeWanted } from './nativeAddon.js';
import { registerNativeWasmKernels } from './wasmKernels.js';
import { BackendUnavailableError } from './backendErrors.js';
import { registerWebGpuBackend, webGpuDescription } from './webgpu/webgpuBackend.js';
import { gpuContext } from './webgpu/gpuContext.js';
import { verifyOptionalKernels } from './webgpu/verifyKernels.js';

/**
 * The tfjs backends ClawLoop can run on.
 * - `wasm`: default on CPU (XNNPACK + SIMD). Ships with ClawLoop.
 * - `cpu`: pure JavaScript; slow, used to cross-check numerics. Ships with ClawLoop.
 * - `webgpu`: GPU through Dawn with ClawLoop's WGSL kernels; needs `npm install webgpu
 *   @tensorflow/tfjs-backend-webgpu` and a Vulkan/Metal/D3D12 driver. CLAWLOOP_WEBGPU_ADAPTER=software
 *   picks Mesa's software rasteriser instead (CI without a GPU: correct, never fast).
 * - `tensorflow`: libtensorflow through `@tensorflow/tfjs-node` or `@tensorflow/tfjs-node-gpu`
 *   (installed by the user; never a ClawLoop dependency).
 */
export type BackendName = (typeof BACKENDS)[number];

/** The names are the contract's (main/protocol/app.ts), so the CLI and the app offer exactly these. */
export const BACKEND_NAMES: readonly BackendName[] = BACKENDS;

export { BackendUnavailableError };

/** The backend named by `CLAWLOOP_BACKEND`, or `wasm`. Throws on an unknown name. */
export function defaultBackendName(env: NodeJS.ProcessEnv = process.env): BackendName {
  const raw = env.CLAWLOOP_BACKEND?.trim();
  if (!raw) return 'wasm';
  return parseBackendName(raw, 'CLAWLOOP_BACKEND');
}

export function parseBackendName(raw: string, source = '--backend'): BackendName {
  const name = raw.trim().toLowerCase();
  if ((BACKEND_NAMES as readonly string[]).includes(name)) return name as BackendName;
  throw new Error(`${source} is '${raw}'; valid backends: ${BACKEND_NAMES.join(', ')}`);
}

async function importOptional(specifier: string, install: string): Promise<unknown> {
  try {
    return await import(specifier);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new BackendUnavailableError(`the '${specifier}' package is not installed. Install it with: ${install}`);
    }
    throw new BackendUnavailableError(`loading '${specifier}' failed: ${(err as Error).message}`);
  }
}

async function register(name: BackendName): Promise<void> {
  switch (name) {
    case 'wasm':
      await import('@tensorflow/tfjs-backend-wasm');
      return;
    case 'cpu':
      await import('@tensorflow/tfjs-backend-cpu');
      return;
    case 'webgpu':
      await registerWebGpuBackend();
      return;
    case 'tensorflow':
      try {
        await importOptional('@tensorflow/tfjs-node-gpu', 'npm install @tensorflow/tfjs-node-gpu');
      } catch {
        await importOptional(
          '@tensorflow/tfjs-node',
          'npm install @tensorflow/tfjs-node (CPU) or @tensorflow/tfjs-node-gpu (CUDA); both download libtensorflow at install time',
        );
      }
      return;
  }
}

let active: BackendName | null = null;

/**
 * Loads (once) and activates a backend. Later calls with the same name are free; a different
 * name switches the active backend (tensors made on the old one stay there).
 * @returns the name of the active backend.
 */
export async function initBackend(
  name: BackendName = defaultBackendName(),
  opts: { log?: (line: string) => void } = {},
): Promise<BackendName> {
  if (active === name && tf.getBackend() === name) return name;
  // Production mode skips per-op debug checks and silences tfjs's "install tfjs-node" banner.
  tf.enableProdMode();
  if (!tf.findBackendFactory(name)) await register(name);
  if (!tf.findBackendFactory(name)) {
    throw new BackendUnavailableError(`backend '${name}' did not register itself after loading its package`);
  }
  const ok = await tf.setBackend(name);
  if (!ok) throw new BackendUnavailableError(`backend '${name}' failed to initialise`);
  await tf.ready();
  active = name;
  let detail = '';
  if (name === 'wasm') {
    detail = ` (SIMD ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT') ? 'on' : 'off'})`;
    const addon = loadNativeAddon();
    if (addon) {
      registerNativeWasmKernels(addon);
      const i = addon.info();
      detail += `, native kernels (${i.blas}, ${i.threads} threads)`;
    } else if (nativeWanted()) {
      opts.log?.(`clawloop: warning: native kernels unavailable, using pure tfjs: ${nativeLoadError()}`);
    }
  }
  if (name === 'webgpu') {
    detail = ` (${webGpuDescription()})`;
    await verifyOptionalKernels(gpuContext()!, opts.log);
  }
  opts.log?.(`clawloop: tfjs backend '${name}'${detail}`);
  return name;
}
