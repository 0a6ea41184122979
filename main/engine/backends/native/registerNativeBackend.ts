import * as tf from '@tensorflow/tfjs-core';
import { registerFusedGradients } from '../../ops/fusedGradients.js';
import type { NativeAddon } from '../nativeAddon.js';
import { ELEMENTWISE_KERNELS } from './kernels/elementwiseKernels.js';
import { ATTENTION_KERNELS } from './kernels/attentionKernels.js';
import { FUSED_KERNELS } from './kernels/fusedKernels.js';
import { applyGemvPath } from './gemvPath.js';
import { INDEX_KERNELS } from './kernels/indexKernels.js';
import { LAYOUT_KERNELS } from './kernels/layoutKernels.js';
import { REDUCE_KERNELS } from './kernels/reduceKernels.js';
import { NativeBackend } from './nativeBackend.js';

/** Every kernel of the native backend. */
export const NATIVE_KERNELS: readonly tf.KernelConfig[] = [...ELEMENTWISE_KERNELS, ...REDUCE_KERNELS, ...LAYOUT_KERNELS, ...INDEX_KERNELS, ...FUSED_KERNELS, ...ATTENTION_KERNELS];

/**
 * Registers the 'native' tfjs backend (tensors in native memory, kernels in the addon). Never
 * chosen by tfjs on its own (priority 0): initBackend selects it. Applies `CLAWLOOP_GEMV`
 * (gemvPath.ts). Idempotent.
 */
export function registerNativeBackend(addon: NativeAddon): void {
  applyGemvPath(addon.nd);
  if (tf.findBackendFactory('native')) return;
  tf.registerBackend('native', () => new NativeBackend(addon.nd), 0);
  for (const k of NATIVE_KERNELS) tf.registerKernel(k);
  registerFusedGradients();
}
