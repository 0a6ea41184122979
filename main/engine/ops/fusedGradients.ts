import * as tf from '@tensorflow/tfjs-core';
import { applyRope } from '../model/layers/rope.js';
import { FUSED } from './fusedKernels.js';

/*
 * Gradients of the fused kernels, as tfjs ops (which run on the GPU backend's kernels): written
 * out from each forward formula, and checked against the composite's gradients on the CPU backend
 * (test/gpu/fusedKernels.webgpu.test.ts). The attention kernel has none: training runs the
 * composite attention, whose gradient tfjs takes.
 */

type Grad = tf.GradConfig['gradFunc'];

/** y = x·r·w, r = (mean(x²) + eps)^(−½):  dw = Σ_rows dy·x·r;  dx = r·(dy·w − x·r²·mean(dy·w·x)). */
const rmsNormGrad: Grad = (dy, [x, weight], attrs) => {
  const d = dy as tf.Tensor;
  const eps = (attrs as { eps: number }).eps;
  const r = tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps));
  const dxhat = tf.mul(d, weight);
  const rows = [...Array(x.rank - 1).keys()];
  return {
    x: () => tf.mul(r, tf.sub(dxhat, tf.mul(tf.mul(x, tf.square(r)), tf.mean(tf.mul(dxhat, x), -1, true)))),
    weight: () => tf.sum(tf.mul(d, tf.mul(x, r)), rows),
  };
};

/** Sums a broadcast gradient back to an input's shape. */
function sumTo(dy: tf.Tensor, shape: number[]): tf.Tensor {
  const axes = tf.broadcast_util.getReductionAxes(shape, dy.shape);
  return tf.reshape(axes.length ? tf.sum(dy, axes) : dy, shape);
}

/**
 * out = [x1·c − x2·s, x2·c + x1·s] after the head transpose:  dx is the rotation of dy by −θ,
 * transposed back;  dc = Σ d1·x1 + d2·x2;  ds = Σ d2·x1 − d1·x2 (summed over the broadcast axes).
 */
const ropeGrad: Grad = (dy, [x, cos, sin], attrs) => {
  const keysT = (attrs as { keysT: boolean }).keysT;
  const d = keysT ? tf.transpose(dy as tf.Tensor, [0, 1, 3, 2]) : (dy as tf.Tensor); // [B, heads, T, D]
  const halves = () => {
    const [x1, x2] = tf.split(tf.transpose(x, [0, 2, 1, 3]), 2, -1);
    const [d1, d2] = tf.split(d, 2, -1);
    return { x1, x2, d1, d2 };
  };
  return {
    x: () => tf.reshape(tf.transpose(applyRope(d as tf.Tensor4D, cos, tf.neg(sin)), [0, 2, 1, 3]), x.shape),
    cos: () => {
      const { x1, x2, d1, d2 } = halves();
      return sumTo(tf.add(tf.mul(d1, x1), tf.mul(d2, x2)), cos.shape);
    },
    sin: () => {
      const { x1, x2, d1, d2 } = halves();
      return sumTo(tf.sub(tf.mul(d2, x1), tf.mul(d1, x2)), sin.shape);
    },
  };
};

/** y = g·σ(g)·u:  dg = dy·u·σ(g)·(1 + g·(1 − σ(g)));  du = dy·g·σ(g). */
const swigluGrad: Grad = (dy, [gate, up]) => {
  const d = dy as tf.Tensor;
  const s = tf.sigmoid(gate);
  return {
    gate: () => tf.mul(tf.mul(d, up), tf.mul(s, tf.add(1, tf.mul(gate, tf.sub(1, s))))),
    up: () => tf.mul(d, tf.mul(gate, s)),
  };
};

/** y = x − lse(x):  dx = dy − softmax(x)·Σ dy. */
const logSoftmaxGrad: Grad = (dy, [y]) => ({
  x: () => tf.sub(dy as tf.Tensor, tf.mul(tf.exp(y), tf.sum(dy as tf.Tensor, -1, true))),
});

/** y_n = x[n, t_n] − lse(x_n):  dx = dy_n·(onehot(t_n) − softmax(x_n)). */
const targetLogprobGrad: Grad = (dy, [logits, targets]) => ({
  logits: () => {
    const V = logits.shape[1]!;
    const onehot = tf.cast(tf.equal(tf.reshape(targets, [-1, 1]), tf.range(0, V, 1, 'int32')), 'float32');
    return tf.mul(tf.reshape(dy as tf.Tensor, [-1, 1]), tf.sub(onehot, tf.softmax(logits)));
  },
  targets: () => tf.zerosLike(targets),
});

/** out = y + (xa·b)·s:  dy;  dxa = (dy·bᵀ)·s;  db = (xaᵀ·dy)·s. */
const loraAddGrad: Grad = (dy, [, xa, b], attrs) => {
  const d = dy as tf.Tensor;
  const s = (attrs as { scale: number }).scale;
  return {
    y: () => d,
    xa: () => tf.mul(tf.matMul(d, b, false, true), s),
    b: () => tf.mul(tf.matMul(xa, d, true, false), s),
  };
};

/** y = x·W (or x·Wᵀ) with W frozen in 16 bits:  dx = dy·Wᵀ (or dy·W), by the same kernel. */
const matmulW16Grad: Grad = (dy, [x, w], attrs) => {
  const a = attrs as { cols: number; format: string; transposeB: boolean };
  return {
    x: () => tf.reshape(tf.engine().runKernel(FUSED.matmulW16, { x: dy as tf.Tensor, w }, { ...a, transposeB: !a.transposeB }) as tf.Tensor, x.shape),
    w: () => tf.zerosLike(w),
  };
};

const GRADIENTS: Array<{ kernelName: string; inputsToSave?: string[]; outputsToSave?: boolean[]; gradFunc: Grad }> = [
  { kernelName: FUSED.rmsNorm, inputsToSave: ['x', 'weight'], gradFunc: rmsNormGrad },
  { kernelName: FUSED.rope, inputsToSave: ['x', 'cos', 'sin'], gradFunc: ropeGrad },
  { kernelName: FUSED.swiglu, inputsToSave: ['gate', 'up'], gradFunc: swigluGrad },
  { kernelName: FUSED.logSoftmax, outputsToSave: [true], gradFunc: logSoftmaxGrad },
  { kernelName: FUSED.targetLogprob, inputsToSave: ['logits', 'targets'], gradFunc: targetLogprobGrad },
  { kernelName: FUSED.loraAdd, inputsToSave: ['y', 'xa', 'b'], gradFunc: loraAddGrad },
  { kernelName: FUSED.matmulW16, inputsToSave: ['x', 'w'], gradFunc: matmulW16Grad },
];

/** Registers the gradients (once per thread), with the kernels that need them. */
export function registerFusedGradients(): void {
  for (const g of GRADIENTS) if (!tf.getGradient(g.kernelName)) tf.registerGradient(g as tf.GradConfig);
}
