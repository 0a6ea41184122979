import * as tf from '@tensorflow/tfjs-core';
import { contextOf } from '../gpuContext.js';
import { grid, uniformBlock } from './wgslCommon.js';

/**
 * One AdamW update of a parameter, its moments and gradient in one pass, with the operations in
 * the order of the composite in optimizer.ts (torch.optim.AdamW's rule):
 *   g ← g·coef (clipping);  m ← m·β1 + g·(1−β1);  v ← v·β2 + g²·(1−β2)
 * (1−β computed in float64 on the host, as the composite's scalars are).
 *   p ← p·decay − (m / (√v / √bc2 + ε)) · (lr / bc1)
 */
const ADAMW_WGSL = `
struct U { n: u32, b1: f32, c1: f32, b2: f32, c2: f32, eps: f32, coef: f32, decay: f32, sqrtBc2: f32, step: f32 };
@group(0) @binding(0) var<storage, read> P: array<f32>;
@group(0) @binding(1) var<storage, read> G: array<f32>;
@group(0) @binding(2) var<storage, read> M: array<f32>;
@group(0) @binding(3) var<storage, read> VV: array<f32>;
@group(0) @binding(4) var<storage, read_write> P1: array<f32>;
@group(0) @binding(5) var<storage, read_write> M1: array<f32>;
@group(0) @binding(6) var<storage, read_write> V1: array<f32>;
@group(0) @binding(7) var<uniform> u: U;
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (wid.x + wid.y * nwg.x) * 256u + lid;
  if (i >= u.n) { return; }
  let g = G[i] * u.coef;
  let m = M[i] * u.b1 + g * u.c1;
  let v = VV[i] * u.b2 + (g * g) * u.c2;
  let denom = sqrt(v) / u.sqrtBc2 + u.eps;
  P1[i] = P[i] * u.decay - (m / denom) * u.step;
  M1[i] = m;
  V1[i] = v;
}
`;

/** What one AdamW step needs besides the tensors. */
export interface AdamWAttrs {
  beta1: number;
  beta2: number;
  eps: number;
  /** Gradient scale from clipping (1: none). */
  coef: number;
  /** p's factor from weight decay, 1 − lr·wd (1: none). */
  decay: number;
  /** √(1 − β2^t). */
  sqrtBc2: number;
  /** lr / (1 − β1^t). */
  step: number;
}

/** ClawAdamW: inputs p, g, m, v of one shape; outputs [p', m', v']. */
export const adamwKernel: tf.KernelFunc = ({ inputs, attrs, backend }) => {
  const { p, g, m, v } = inputs as Record<'p' | 'g' | 'm' | 'v', tf.TensorInfo>;
  const a = attrs as unknown as AdamWAttrs;
  const ctx = contextOf(backend);
  const n = tf.util.sizeFromShape(p.shape);
  return ctx.run({
    key: 'adamw',
    code: () => ADAMW_WGSL,
    workgroups: grid(Math.ceil(n / 256), ctx.maxWorkgroups),
    inputs: [p, g, m, v],
    outputs: [0, 1, 2].map(() => ({ shape: p.shape, dtype: 'float32' as const })),
    uniforms: uniformBlock([
      ['u32', n],
      ['f32', a.beta1],
      ['f32', 1 - a.beta1],
      ['f32', a.beta2],
      ['f32', 1 - a.beta2],
      ['f32', a.eps],
      ['f32', a.coef],
      ['f32', a.decay],
      ['f32', a.sqrtBc2],
      ['f32', a.step],
    ]),
  });
};
