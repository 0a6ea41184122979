import * as tf from '@tensorflow/tfjs-core';
import { contextOf } from '../gpuContext.js';
import { grid, GRID_INDEX, ROW_THREADS, uniformBlock, WORKGROUP_REDUCE } from './wgslCommon.js';

/** y = x · rsqrt(mean(x²) + eps) · w over the last axis: one workgroup per row. */
function rmsNormWgsl(): string {
  return `
struct U { rows: u32, D: u32, eps: f32 };
@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read> W: array<f32>;
@group(0) @binding(2) var<storage, read_write> Y: array<f32>;
@group(0) @binding(3) var<uniform> u: U;
${WORKGROUP_REDUCE}
@compute @workgroup_size(${ROW_THREADS}, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = ${GRID_INDEX};
  let live = row < u.rows;
  let base = row * u.D;
  var ss = 0.0;
  if (live) {
    for (var i = lid; i < u.D; i += ${ROW_THREADS}u) { let v = X[base + i]; ss += v * v; }
  }
  let r = inverseSqrt(wgSum(ss, lid) / f32(u.D) + u.eps);
  if (live) {
    for (var i = lid; i < u.D; i += ${ROW_THREADS}u) { Y[base + i] = X[base + i] * r * W[i]; }
  }
}
`;
}

/** ClawRmsNorm: inputs x [..., D] and weight [D]; attr eps. */
export const rmsNormKernel: tf.KernelFunc = ({ inputs, attrs, backend }) => {
  const { x, weight } = inputs as { x: tf.TensorInfo; weight: tf.TensorInfo };
  const eps = (attrs as { eps: number }).eps;
  const ctx = contextOf(backend);
  const D = x.shape[x.shape.length - 1];
  const rows = tf.util.sizeFromShape(x.shape) / D;
  return ctx.run({
    key: 'rms_norm',
    code: rmsNormWgsl,
    workgroups: grid(rows, ctx.maxWorkgroups),
    inputs: [x, weight],
    outputs: [{ shape: x.shape, dtype: 'float32' }],
    uniforms: uniformBlock([
      ['u32', rows],
      ['u32', D],
      ['f32', eps],
    ]),
  })[0];
};
