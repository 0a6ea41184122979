import * as tf from '@tensorflow/tfjs-core';
import { contextOf } from '../gpuContext.js';
import { grid, uniformBlock } from './wgslCommon.js';

/** SwiGLU's gate: silu(g) · u = g · sigmoid(g) · u, element-wise, in the composite's order. */
const SWIGLU_WGSL = `
struct U { n: u32 };
@group(0) @binding(0) var<storage, read> G: array<f32>;
@group(0) @binding(1) var<storage, read> UP: array<f32>;
@group(0) @binding(2) var<storage, read_write> Y: array<f32>;
@group(0) @binding(3) var<uniform> u: U;
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (wid.x + wid.y * nwg.x) * 256u + lid;
  if (i >= u.n) { return; }
  let g = G[i];
  Y[i] = g * (1.0 / (1.0 + exp(-g))) * UP[i];
}
`;

/** ClawSwiGlu: inputs gate and up of one shape. */
export const swigluKernel: tf.KernelFunc = ({ inputs, backend }) => {
  const { gate, up } = inputs as { gate: tf.TensorInfo; up: tf.TensorInfo };
  const ctx = contextOf(backend);
  const n = tf.util.sizeFromShape(gate.shape);
  return ctx.run({
    key: 'swiglu',
    code: () => SWIGLU_WGSL,
    workgroups: grid(Math.ceil(n / 256), ctx.maxWorkgroups),
    inputs: [gate, up],
    outputs: [{ shape: gate.shape, dtype: 'float32' }],
    uniforms: uniformBlock([['u32', n]]),
  })[0];
};
