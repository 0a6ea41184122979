import * as tf from '@tensorflow/tfjs-core';
import { contextOf } from '../gpuContext.js';
import { grid, GRID_INDEX, ROW_THREADS, uniformBlock, WORKGROUP_REDUCE } from './wgslCommon.js';

/*
 * Log-softmax over the vocabulary with its log-sum-exp, one workgroup per row: y = (x − max) −
 * log Σ e^(x − max), in the order tfjs's composite logSoftmax uses. The target variant writes only
 * y at each row's target (the token log-prob a cross-entropy needs) and never stores the rest.
 */

function logSoftmaxWgsl(targetOnly: boolean): string {
  return `
struct U { rows: u32, V: u32 };
@group(0) @binding(0) var<storage, read> X: array<f32>;
${targetOnly ? '@group(0) @binding(1) var<storage, read> TGT: array<i32>;' : ''}
@group(0) @binding(${targetOnly ? 2 : 1}) var<storage, read_write> Y: array<f32>;
@group(0) @binding(${targetOnly ? 3 : 2}) var<uniform> u: U;
${WORKGROUP_REDUCE}
@compute @workgroup_size(${ROW_THREADS}, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = ${GRID_INDEX};
  let live = row < u.rows;
  let base = row * u.V;
  var mx = -3.0e38;
  if (live) { for (var i = lid; i < u.V; i += ${ROW_THREADS}u) { mx = max(mx, X[base + i]); } }
  let m = wgMax(mx, lid);
  var s = 0.0;
  if (live) { for (var i = lid; i < u.V; i += ${ROW_THREADS}u) { s += exp(X[base + i] - m); } }
  let lse = log(wgSum(s, lid));
  if (!live) { return; }
  ${
    targetOnly
      ? 'if (lid == 0u) { Y[row] = (X[base + u32(TGT[row])] - m) - lse; }'
      : `for (var i = lid; i < u.V; i += ${ROW_THREADS}u) { Y[base + i] = (X[base + i] - m) - lse; }`
  }
}
`;
}

function rowsOf(x: tf.TensorInfo): { rows: number; V: number } {
  const V = x.shape[x.shape.length - 1];
  return { rows: tf.util.sizeFromShape(x.shape) / V, V };
}

/** ClawLogSoftmax: input x [..., V], log-softmax over the last axis. */
export const logSoftmaxKernel: tf.KernelFunc = ({ inputs, backend }) => {
  const { x } = inputs as { x: tf.TensorInfo };
  const ctx = contextOf(backend);
  const { rows, V } = rowsOf(x);
  return ctx.run({
    key: 'log_softmax',
    code: () => logSoftmaxWgsl(false),
    workgroups: grid(rows, ctx.maxWorkgroups),
    inputs: [x],
    outputs: [{ shape: x.shape, dtype: 'float32' }],
    uniforms: uniformBlock([
      ['u32', rows],
      ['u32', V],
    ]),
  })[0];
};

/** ClawTargetLogprob: inputs logits [N, V] and targets int32 [N]; output log softmax(logits)[n, target[n]]: [N]. */
export const targetLogprobKernel: tf.KernelFunc = ({ inputs, backend }) => {
  const { logits, targets } = inputs as { logits: tf.TensorInfo; targets: tf.TensorInfo };
  const ctx = contextOf(backend);
  const { rows, V } = rowsOf(logits);
  return ctx.run({
    key: 'target_logprob',
    code: () => logSoftmaxWgsl(true),
    workgroups: grid(rows, ctx.maxWorkgroups),
    inputs: [logits, targets],
    outputs: [{ shape: [rows], dtype: 'float32' }],
    uniforms: uniformBlock([
      ['u32', rows],
      ['u32', V],
    ]),
  })[0];
};
