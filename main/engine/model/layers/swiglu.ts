import * as tf from '@tensorflow/tfjs-core';
import { FUSED, fusable, runFused } from '../../ops/fusedKernels.js';

/** SwiGLU's gating: silu(gate) · up = gate · sigmoid(gate) · up, element-wise. */
export function swiglu(gate: tf.Tensor, up: tf.Tensor): tf.Tensor {
  if (fusable(FUSED.swiglu, gate, up)) return runFused(FUSED.swiglu, { gate, up });
  return tf.mul(tf.mul(gate, tf.sigmoid(gate)), up);
}
