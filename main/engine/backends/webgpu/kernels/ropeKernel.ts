import * as tf from '@tensorflow/tfjs-core';
import { contextOf } from '../gpuContext.js';
import { grid, uniformBlock } from './wgslCommon.js';

/**
 * Rotary embedding fused with the head transpose: x [B, T, heads, D] (the projection's output,
 * reshaped) → [B, heads, T, D], or [B, heads, D, T] for keys that attention reads transposed. One
 * thread per rotated pair (x[i], x[i + D/2]):
 *   out[i] = x1·cos − x2·sin,  out[i + D/2] = x2·cos + x1·sin   (Hugging Face's rotate_half).
 * cos/sin are [T, D/2] (every row at the same positions) or [B, 1, T, D/2] (positions per row).
 */
function ropeWgsl(keysT: boolean): string {
  const outIndex = keysT ? '((b * u.H + h) * u.D + d) * u.T + t' : '((b * u.H + h) * u.T + t) * u.D + d';
  return `
struct U { B: u32, T: u32, H: u32, D: u32, perRow: u32 };
@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read> COS: array<f32>;
@group(0) @binding(2) var<storage, read> SIN: array<f32>;
@group(0) @binding(3) var<storage, read_write> Y: array<f32>;
@group(0) @binding(4) var<uniform> u: U;
fn put(b: u32, h: u32, t: u32, d: u32, v: f32) { Y[${outIndex}] = v; }
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let half = u.D / 2u;
  let idx = (wid.x + wid.y * nwg.x) * 256u + lid;
  if (idx >= u.B * u.T * u.H * half) { return; }
  let i = idx % half;
  let h = (idx / half) % u.H;
  let t = (idx / (half * u.H)) % u.T;
  let b = idx / (half * u.H * u.T);
  let xb = ((b * u.T + t) * u.H + h) * u.D;
  let x1 = X[xb + i];
  let x2 = X[xb + i + half];
  let cb = (select(0u, b, u.perRow == 1u) * u.T + t) * half + i;
  let c = COS[cb];
  let s = SIN[cb];
  put(b, h, t, i, x1 * c - x2 * s);
  put(b, h, t, i + half, x2 * c + x1 * s);
}
`;
}

/** ClawRope: inputs x [B, T, heads, D], cos and sin [T, D/2] or [B, 1, T, D/2]; attr keysT (output [B, heads, D, T]). */
export const ropeKernel: tf.KernelFunc = ({ inputs, attrs, backend }) => {
  const { x, cos, sin } = inputs as { x: tf.TensorInfo; cos: tf.TensorInfo; sin: tf.TensorInfo };
  const keysT = (attrs as { keysT: boolean }).keysT;
  const ctx = contextOf(backend);
  const [B, T, H, D] = x.shape;
  // [T, D/2] tables are shared by every row; [B, 1, T, D/2] ones hold each row's positions.
  const perRow = B > 1 && tf.util.sizeFromShape(cos.shape) === B * T * (D / 2) ? 1 : 0;
  return ctx.run({
    key: `rope_${keysT ? 'kt' : 'q'}`,
    code: () => ropeWgsl(keysT),
    workgroups: grid(Math.ceil((B * T * H * (D / 2)) / 256), ctx.maxWorkgroups),
    inputs: [x, cos, sin],
    outputs: [{ shape: keysT ? [B, H, D, T] : [B, H, T, D], dtype: 'float32' }],
    uniforms: uniformBlock([
      ['u32', B],
      ['u32', T],
      ['u32', H],
      ['u32', D],
      ['u32', perRow],
    ]),
  })[0];
};
