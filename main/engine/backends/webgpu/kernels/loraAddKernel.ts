import * as tf from '@tensorflow/tfjs-core';
import { contextOf } from '../gpuContext.js';
import { grid, uniformBlock } from './wgslCommon.js';

/**
 * The LoRA update as the epilogue of the base projection: out = y + (xa · B) · scale, where
 * xa = x·A [N, r] and B [r, out]. One thread per output element, its rank-r dot product read from
 * B's column (neighbouring threads read neighbouring columns), so (xa·B) is never stored.
 */
const LORA_ADD_WGSL = `
struct U { N: u32, O: u32, R: u32, scale: f32 };
@group(0) @binding(0) var<storage, read> Y: array<f32>;
@group(0) @binding(1) var<storage, read> XA: array<f32>;
@group(0) @binding(2) var<storage, read> LB: array<f32>;
@group(0) @binding(3) var<storage, read_write> OUT: array<f32>;
@group(0) @binding(4) var<uniform> u: U;
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (wid.x + wid.y * nwg.x) * 256u + lid;
  if (i >= u.N * u.O) { return; }
  let n = i / u.O;
  let o = i % u.O;
  var s = 0.0;
  for (var k = 0u; k < u.R; k++) { s = fma(XA[n * u.R + k], LB[k * u.O + o], s); }
  OUT[i] = Y[i] + s * u.scale;
}
`;

/** ClawLoraAdd: inputs y [N, out], xa [N, r], b [r, out]; attr scale. */
export const loraAddKernel: tf.KernelFunc = ({ inputs, attrs, backend }) => {
  const { y, xa, b } = inputs as Record<'y' | 'xa' | 'b', tf.TensorInfo>;
  const { scale } = attrs as { scale: number };
  const ctx = contextOf(backend);
  const O = y.shape[y.shape.length - 1];
  const N = tf.util.sizeFromShape(y.shape) / O;
  const R = xa.shape[xa.shape.length - 1];
  return ctx.run({
    key: 'lora_add',
    code: () => LORA_ADD_WGSL,
    workgroups: grid(Math.ceil((N * O) / 256), ctx.maxWorkgroups),
    inputs: [y, xa, b],
    outputs: [{ shape: y.shape, dtype: 'float32' }],
    uniforms: uniformBlock([
      ['u32', N],
      ['u32', O],
      ['u32', R],
      ['f32', scale],
    ]),
  })[0];
};
