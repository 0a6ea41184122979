import * as tf from '@tensorflow/tfjs-core';
import { contextOf } from '../gpuContext.js';
import { grid, uniformBlock } from './wgslCommon.js';

/**
 * Row gather from a window of a matrix: out[i] = X[idx[i]] for the indices that fall in the
 * window's rows [r0, r0 + rows); the others are left for the other windows to write.
 */
const GATHER_WGSL = `
struct U { n: u32, cols: u32, r0: u32, rows: u32, shift: u32 };
@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read> IDX: array<i32>;
@group(0) @binding(2) var<storage, read_write> Y: array<f32>;
@group(0) @binding(3) var<uniform> u: U;
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (wid.x + wid.y * nwg.x) * 256u + lid;
  if (i >= u.n * u.cols) { return; }
  let row = u32(IDX[i / u.cols]);
  if (row < u.r0 || row >= u.r0 + u.rows) { return; }
  Y[i] = X[u.shift + (row - u.r0) * u.cols + i % u.cols];
}
`;

/**
 * tfjs's GatherV2 on 'webgpu', for a float32 matrix larger than one binding (an embedding table
 * on a GPU that binds 128 MiB): rows are gathered window by window. Everything else goes to
 * tfjs's kernel.
 */
export function gatherKernel(fallback: tf.KernelFunc): tf.KernelFunc {
  return (args) => {
    const { x, indices } = args.inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
    const { axis, batchDims } = args.attrs as { axis: number; batchDims: number };
    const ctx = contextOf(args.backend);
    const limit = ctx.maxBinding;
    const rows = x.shape[0];
    const cols = tf.util.sizeFromShape(x.shape.slice(1));
    const big = x.dtype === 'float32' && (axis === 0 || axis === -x.shape.length) && !batchDims && rows * cols * 4 > limit;
    if (!big || indices.dtype !== 'int32') return fallback(args);
    const n = tf.util.sizeFromShape(indices.shape);
    const step = Math.floor((limit - 256) / (cols * 4));
    if (step < 1) throw new Error(`webgpu: one row of [${x.shape}] (${cols * 4} bytes) does not fit a binding (${limit} bytes)`);
    let out: tf.TensorInfo | null = null;
    for (let r0 = 0; r0 < rows; r0 += step) {
      const count = Math.min(step, rows - r0);
      const offset = r0 * cols * 4;
      const aligned = Math.floor(offset / 256) * 256;
      out = ctx.run({
        key: 'gather_rows_window',
        code: () => GATHER_WGSL,
        workgroups: grid(Math.ceil((n * cols) / 256), ctx.maxWorkgroups),
        inputs: [x, indices],
        outputs: [out ?? { shape: [...indices.shape, ...x.shape.slice(1)], dtype: 'float32' }],
        uniforms: uniformBlock([
          ['u32', n],
          ['u32', cols],
          ['u32', r0],
          ['u32', count],
          ['u32', (offset - aligned) / 4],
        ]),
        windows: new Map([[0, { offset: aligned, size: count * cols * 4 + offset - aligned }]]),
      })[0];
    }
    return out!;
  };
}
