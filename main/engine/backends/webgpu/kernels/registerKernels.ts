import * as tf from '@tensorflow/tfjs-core';
import { FUSED } from '../../../ops/fusedKernels.js';
import { registerFusedGradients } from '../../../ops/fusedGradients.js';
import { adamwKernel } from './adamwKernel.js';
import { attentionKernel } from './attentionKernel.js';
import { logSoftmaxKernel, targetLogprobKernel } from './logSoftmaxKernel.js';
import { loraAddKernel } from './loraAddKernel.js';
import { batchMatMulKernel, matmulW16Kernel } from './matmulKernel.js';
import { gatherKernel } from './gatherKernel.js';
import { rmsNormKernel } from './rmsNormKernel.js';
import { ropeKernel } from './ropeKernel.js';
import { swigluKernel } from './swigluKernel.js';

const FUSED_KERNELS: Array<[string, tf.KernelFunc]> = [
  [FUSED.rmsNorm, rmsNormKernel],
  [FUSED.rope, ropeKernel],
  [FUSED.swiglu, swigluKernel],
  [FUSED.attention, attentionKernel],
  [FUSED.logSoftmax, logSoftmaxKernel],
  [FUSED.targetLogprob, targetLogprobKernel],
  [FUSED.loraAdd, loraAddKernel],
  [FUSED.adamw, adamwKernel],
  [FUSED.matmulW16, matmulW16Kernel],
];

let registered = false;

/** Replaces tfjs's kernels with ClawLoop's where they exist, and adds ClawLoop's fused ops (once). */
export function registerClawKernels(): void {
  if (registered) return;
  registered = true;
  const original = tf.getKernel(tf.BatchMatMul, 'webgpu');
  if (!original) throw new Error("webgpu: tfjs-backend-webgpu registered no BatchMatMul kernel; is '@tensorflow/tfjs-backend-webgpu' 4.22?");
  tf.unregisterKernel(tf.BatchMatMul, 'webgpu');
  tf.registerKernel({ kernelName: tf.BatchMatMul, backendName: 'webgpu', kernelFunc: batchMatMulKernel(original.kernelFunc) });
  const gather = tf.getKernel(tf.GatherV2, 'webgpu')!;
  tf.unregisterKernel(tf.GatherV2, 'webgpu');
  tf.registerKernel({ kernelName: tf.GatherV2, backendName: 'webgpu', kernelFunc: gatherKernel(gather.kernelFunc) });
  for (const [kernelName, kernelFunc] of FUSED_KERNELS) tf.registerKernel({ kernelName, backendName: 'webgpu', kernelFunc });
  registerFusedGradients();
}
