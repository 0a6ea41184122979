import * as tf from '@tensorflow/tfjs-core';
import { transposesAreFree } from '../../backends/capabilities.js';
import { project, projectBack, type ProjectionWeight, type WeightLayout } from './linear.js';
import { addLoraUpdate } from './loraUpdate.js';
import { transposeLast2 } from './matmul.js';

/** a·b with transpose flags where the backend multiplies transposes fast, explicit transposes where it does not. */
function mm(a: tf.Tensor, b: tf.Tensor, ta = false, tb = false): tf.Tensor {
  if (transposesAreFree()) return tf.matMul(a, b, ta, tb);
  return tf.matMul(ta ? transposeLast2(a) : a, tb ? transposeLast2(b) : b);
}

/** A frozen projection and the LoRA pair beside it. */
export interface LoraProjection {
  /** The frozen weight, held in `layout` (see WeightLayout), and its frozen bias if any. */
  w: ProjectionWeight;
  layout: WeightLayout;
  bias?: tf.Tensor;
  /** A [in, r], B [r, out], and the update's scale (alpha / r). */
  a: tf.Tensor;
  b: tf.Tensor;
  scale: number;
}

/**
 * x·Wᵀ (+ bias) + scale·((x ⊙ drop)·A)·B for a frozen W, as one differentiable op of x, A and B.
 * tfjs's ops would keep the projection's output, the update and its unscaled product ([T, out]
 * each) alive for their gradients (an Add or Multiply keeps both inputs); this keeps only what
 * the gradients read: the adapter's input and x·A ([T, r]). `drop` is LoRA dropout's mask (0 or
 * 1/keep per element), or null.
 */
export function loraProject(x: tf.Tensor, p: LoraProjection, drop: tf.Tensor | null): tf.Tensor {
  const op = tf.customGrad(((xv: tf.Tensor, av: tf.Tensor, bv: tf.Tensor, save: tf.GradSaveFunc) => {
    const xin = drop ? tf.mul(xv, drop) : xv;
    const xa = tf.matMul(xin, av); // [T, r]
    let y = project(xv, p.w, p.layout);
    if (p.bias) y = tf.add(y, p.bias);
    save(drop ? [xin, xa, drop] : [xin, xa]);
    return {
      value: addLoraUpdate(y, xa, bv, p.scale),
      gradFunc: (dy: tf.Tensor, [sxin, sxa, sdrop]: tf.Tensor[]) => {
        const g = tf.mul(mm(dy, bv, false, true), p.scale); // dL/d(x·A): [T, r]
        const base = projectBack(dy, p.w, p.layout, mm);
        const viaA = mm(g, av, false, true); // [T, in]
        const dx = tf.add(base, sdrop ? tf.mul(viaA, sdrop) : viaA);
        return [dx, mm(sxin, g, true, false), tf.mul(mm(sxa, dy, true, false), p.scale)];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return op(x, p.a, p.b) as tf.Tensor;
}

/** LoRA dropout's mask for x (as tf.dropout draws it from the same seed): 0 or 1/keep per element. */
export function dropoutMask(x: tf.Tensor, rate: number, seed: number): tf.Tensor {
  const keep = 1 - rate;
  return tf.div(tf.floor(tf.add(tf.randomUniform(x.shape, 0, 1, 'float32', seed), keep)), keep);
}
