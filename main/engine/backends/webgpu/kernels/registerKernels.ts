import * as tf from '@tensorflow/tfjs-core';
import { batchMatMulKernel } from './matmulKernel.js';

let registered = false;

/** Replaces tfjs's kernels with ClawLoop's where they exist, and adds ClawLoop's fused ops (once). */
export function registerClawKernels(): void {
  if (registered) return;
  registered = true;
  const original = tf.getKernel(tf.BatchMatMul, 'webgpu');
  if (!original) throw new Error("webgpu: tfjs-backend-webgpu registered no BatchMatMul kernel; is '@tensorflow/tfjs-backend-webgpu' 4.22?");
  tf.unregisterKernel(tf.BatchMatMul, 'webgpu');
  tf.registerKernel({ kernelName: tf.BatchMatMul, backendName: 'webgpu', kernelFunc: batchMatMulKernel(original.kernelFunc) });
}
