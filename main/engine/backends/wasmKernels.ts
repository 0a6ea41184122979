import * as tf from '@tensorflow/tfjs-core';
import type { NativeAddon } from './nativeAddon.js';
import { concat, gatherV2, identity, splitV, tile } from './wasmCopyKernels.js';
import { batchMatMul, binaryKernel, softmaxKernel, sumKernel, unaryKernel } from './wasmMathKernels.js';

interface Registered {
  kernelName: string;
  original: tf.KernelConfig | undefined;
}

const registered: Registered[] = [];

function replaceKernel(kernelName: string, kernelFunc: (original: tf.KernelFunc) => tf.KernelFunc): void {
  const original = tf.getKernel(kernelName, 'wasm');
  if (!original) throw new Error(`tfjs-wasm has no '${kernelName}' kernel to replace`);
  tf.unregisterKernel(kernelName, 'wasm');
  tf.registerKernel({ ...original, kernelFunc: kernelFunc(original.kernelFunc) });
  registered.push({ kernelName, original });
}

/** Routes tfjs-wasm kernels to the native addon. Idempotent. */
export function registerNativeWasmKernels(addon: NativeAddon): void {
  if (registered.length) return;
  replaceKernel('BatchMatMul', batchMatMul(addon));
  replaceKernel('Tile', tile(addon));
  replaceKernel('Identity', identity());
  replaceKernel('GatherV2', gatherV2(addon));
  replaceKernel('Concat', concat(addon));
  replaceKernel('SplitV', splitV(addon));
  replaceKernel('Exp', unaryKernel(addon, 0));
  replaceKernel('Sigmoid', unaryKernel(addon, 1));
  replaceKernel('Square', unaryKernel(addon, 2));
  replaceKernel('Sqrt', unaryKernel(addon, 3));
  replaceKernel('Rsqrt', unaryKernel(addon, 4));
  replaceKernel('Neg', unaryKernel(addon, 5));
  replaceKernel('Add', binaryKernel(addon, 0));
  replaceKernel('Sub', binaryKernel(addon, 1));
  replaceKernel('Multiply', binaryKernel(addon, 2));
  replaceKernel('RealDiv', binaryKernel(addon, 3));
  replaceKernel('Sum', sumKernel(addon));
  replaceKernel('Softmax', softmaxKernel(addon));
}

/** Puts tfjs-wasm's own kernels back (used to compare both paths in one process). */
export function unregisterNativeWasmKernels(): void {
  for (const r of registered.splice(0).reverse()) {
    tf.unregisterKernel(r.kernelName, 'wasm');
    if (r.original) tf.registerKernel(r.original);
  }
}

export function nativeWasmKernelsActive(): boolean {
  return registered.length > 0;
}
