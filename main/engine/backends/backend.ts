import * as tf from '@tensorflow/tfjs-core';
import { BACKENDS } from '../../protocol/app.js';
import '../training/gradients.js';
import { loadNativeAddon, nativeLoadError, nativeWanted, type NativeAddon } from './nativeAddon.js';
import { registerNativeBackend } from './native/registerNativeBackend.js';
import { halfGemmMode } from './native/halfGemmMode.js';
import { HALF_GEMM } from './native/ndAddon.js';
import { BackendUnavailableError } from './backendErrors.js';
import { registerWebGpuBackend, webGpuDescription } from './webgpu/webgpuBackend.js';
import { gpuContext } from './webgpu/gpuContext.js';
import { verifyOptionalKernels } from './webgpu/verifyKernels.js';

/**
 * The tfjs backends ClawLoop can run on.
 * - `native`: the default wherever the native addon builds: tensors in native memory (no 4 GB
 *   limit), 16-bit weights kept 16-bit and memory-mapped, kernels in C++ on BLAS.
 * - `wasm`: pure tfjs, the fallback on CPU where the addon does not build or load, or with
 *   `CLAWLOOP_NATIVE=0` (XNNPACK + SIMD; every tensor in the 4 GB WebAssembly heap). Ships with ClawLoop.
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

/**
 * The backend named by `CLAWLOOP_BACKEND`, else `native` when the addon loads, else `wasm`.
 * Throws on an unknown name.
 */
export function defaultBackendName(env: NodeJS.ProcessEnv = process.env): BackendName {
  const raw = env.CLAWLOOP_BACKEND?.trim();
  if (raw) return parseBackendName(raw, 'CLAWLOOP_BACKEND');
  return nativeWanted(env) && loadNativeAddon() ? 'native' : 'wasm';
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
    case 'native': {
      const addon = loadNativeAddon();
      if (!addon) throw new BackendUnavailableError(`the native backend is unavailable: ${nativeLoadError()}`);
      registerNativeBackend(addon);
      addon.nd.setHalfGemm(HALF_GEMM[halfGemmMode(addon.nd)]);
      return;
    }
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
  let detail = backendDetail(name);
  if (name === 'webgpu') {
    detail = ` (${webGpuDescription()})`;
    await verifyOptionalKernels(gpuContext()!, opts.log);
  }
  opts.log?.(`clawloop: tfjs backend '${name}'${detail}`);
  return name;
}

/** What the start-up line says about a backend: how it computes, and for wasm why native is not used. */
function backendDetail(name: BackendName): string {
  const addon = nativeWanted() ? loadNativeAddon() : null;
  if (name === 'native') return ` (tensors in native memory; ${kernelsDetail(addon!)}, 16-bit weights: ${addon!.nd.cpu().halfGemm})`;
  if (name !== 'wasm') return '';
  const detail = ` (SIMD ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT') ? 'on' : 'off'})`;
  return addon ? detail : `${detail}; the native backend is unavailable: ${nativeLoadError()}`;
}

function kernelsDetail(addon: NativeAddon): string {
  const i = addon.info();
  return `${i.blas}, ${i.threads} threads`;
}
