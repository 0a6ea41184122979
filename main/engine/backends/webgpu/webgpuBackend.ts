import * as tf from '@tensorflow/tfjs-core';
import { DawnUnavailableError, GPU_PACKAGES, openAdapter } from '../../gpu/dawn.js';
import { noAdapterHints, noSoftwareAdapterHints } from '../../gpu/driverHints.js';
import { dawnInstanceFlags, KERNEL_LIMITS, kernelFeatures, WANTED_FEATURES } from '../../gpu/features.js';
import type { GpuAdapter, GpuDevice } from '../../gpu/gpuTypes.js';
import { BackendUnavailableError } from '../backendErrors.js';
import { BoundedBufferPool } from './bufferPool.js';
import { registerClawKernels } from './kernels/registerKernels.js';
import { GpuContext, setGpuContext } from './gpuContext.js';

/*
 * The 'webgpu' tfjs backend on ClawLoop's own device: tfjs-backend-webgpu keeps the tensors, runs
 * the ops nobody has replaced and differentiates; ClawLoop's WGSL kernels replace the ops that
 * dominate the time (kernels/). The device is requested here (not by tfjs) so that it has the
 * features those kernels use (subgroups, shader-f16, cooperative matrices) and the adapter's full
 * buffer limits.
 */

interface TfjsWebGpu {
  WebGPUBackend: new (device: GpuDevice, info?: unknown) => tf.KernelBackend;
}

async function importTfjsWebGpu(): Promise<TfjsWebGpu> {
  try {
    return (await import('@tensorflow/tfjs-backend-webgpu' as string)) as TfjsWebGpu;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new BackendUnavailableError(`the '@tensorflow/tfjs-backend-webgpu' package is not installed. Install it with: ${GPU_PACKAGES}`);
    }
    throw new BackendUnavailableError(`loading '@tensorflow/tfjs-backend-webgpu' failed: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** The adapter, or an error that says why there is none and what to do. */
async function findAdapter(): Promise<{ adapter: GpuAdapter; choice: 'hardware' | 'software'; gpu: unknown }> {
  let opened;
  try {
    opened = await openAdapter({
      dawnFlags: dawnInstanceFlags(process.env.CLAWLOOP_WEBGPU_ADAPTER === 'software' ? 'software' : 'hardware'),
    });
  } catch (err) {
    if (err instanceof DawnUnavailableError) throw new BackendUnavailableError(`webgpu: ${err.message}`);
    throw new BackendUnavailableError(`webgpu: ${(err as Error).message}`);
  }
  if (!opened.adapter) {
    const hints = opened.choice === 'software' ? noSoftwareAdapterHints() : noAdapterHints();
    throw new BackendUnavailableError(
      `webgpu: no ${opened.choice === 'software' ? 'software' : 'GPU'} adapter found. ${hints.join(' ')} Or choose --backend wasm. (\`clawloop doctor\` shows the details.)`,
    );
  }
  return { adapter: opened.adapter, choice: opened.choice, gpu: opened.gpu };
}

async function requestDevice(adapter: GpuAdapter): Promise<GpuDevice> {
  const requiredFeatures = WANTED_FEATURES.filter((f) => adapter.features.has(f));
  const l = adapter.limits;
  const requiredLimits: Record<string, number> = {};
  for (const name of KERNEL_LIMITS) {
    requiredLimits[name] = l[name];
  }
  return adapter.requestDevice({ requiredFeatures: [...requiredFeatures], requiredLimits });
}

/** A one-line description for the start-up log. */
function describe(adapter: GpuAdapter, device: GpuDevice, choice: string): string {
  const i = adapter.info;
  const name = [i.vendor, i.architecture, i.device || i.description].filter((s) => s).join(' ') || 'unnamed adapter';
  const k = kernelFeatures(device.features);
  const on = [k.subgroups && 'subgroups', k.shaderF16 && 'shader-f16', k.subgroupMatrix && 'cooperative matrices'].filter((s) => s);
  return `${name}${choice === 'software' ? ', software' : ''}; ${on.length ? on.join(', ') : 'no optional features'}`;
}

let description = '';

/**
 * Registers the 'webgpu' backend: finds the adapter, opens the device, and registers tfjs's
 * WebGPU kernels plus ClawLoop's. Throws BackendUnavailableError saying what to install.
 */
export async function registerWebGpuBackend(): Promise<void> {
  // Imported before navigator.gpu exists, so tfjs does not register a factory of its own.
  const { WebGPUBackend } = await importTfjsWebGpu();
  const { adapter, choice, gpu } = await findAdapter();
  const device = await requestDevice(adapter);
  const nav = ((globalThis as { navigator?: Record<string, unknown> }).navigator ??= {});
  Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true, writable: true });
  if (tf.findBackendFactory('webgpu')) tf.removeBackend('webgpu');
  description = describe(adapter, device, choice);
  tf.registerBackend(
    'webgpu',
    () => {
      const backend = new WebGPUBackend(device, adapter.info);
      const ctx = new GpuContext(device, backend, adapter.info);
      BoundedBufferPool.install(ctx);
      setGpuContext(ctx);
      return backend;
    },
    3,
  );
  registerClawKernels();
}

/** The adapter line for the start-up log ('' before registration). */
export function webGpuDescription(): string {
  return description;
}
