import * as tf from '@tensorflow/tfjs-core';
import { contextOf } from '../gpuContext.js';
import { ATTENTION_MAX_HEAD_DIM, ATTENTION_ROWS, attentionWgsl } from './attentionWgsl.js';
import { uniformBlock } from './wgslCommon.js';

export { ATTENTION_MAX_HEAD_DIM };

/**
 * ClawAttention: inputs q [B, H, T, D], kT [B, KVH, D, S], v [B, KVH, S, D] and rows int32 [B, 2]
 * (per row: the position of its first query, and its left padding in the cache); attrs window
 * (0: none) and scale. Output [B, T, H·D].
 */
export const attentionKernel: tf.KernelFunc = ({ inputs, attrs, backend }) => {
  const { q, kT, v, rows } = inputs as Record<'q' | 'kT' | 'v' | 'rows', tf.TensorInfo>;
  const { window, scale } = attrs as { window: number; scale: number };
  const ctx = contextOf(backend);
  const [B, H, T, D] = q.shape;
  const [, KVH, , S] = kT.shape;
  const G = H / KVH;
  if (D > ATTENTION_MAX_HEAD_DIM) throw new Error(`ClawAttention: head size ${D} > ${ATTENTION_MAX_HEAD_DIM}`);
  return ctx.run({
    key: 'attention',
    code: attentionWgsl,
    workgroups: [Math.ceil((G * T) / ATTENTION_ROWS), KVH, B],
    inputs: [q, kT, v, rows],
    outputs: [{ shape: [B, T, H * D], dtype: 'float32' }],
    uniforms: uniformBlock([
      ['u32', B],
      ['u32', H],
      ['u32', KVH],
      ['u32', T],
      ['u32', S],
      ['u32', D],
      ['u32', G],
      ['u32', window],
      ['f32', scale],
    ]),
  })[0];
};
