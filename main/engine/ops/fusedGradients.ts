import * as tf from '@tensorflow/tfjs-core';
import { applyRope } from '../model/layers/rope.js';
import { FUSED, fusable, runFused, type FusedKernel } from './fusedKernels.js';

/*
 * Gradients of the fused kernels, one per op for every backend: the op's fused backward kernel
 * where the active backend has one (the native backend does for RMSNorm, RoPE, SwiGLU and the
 * masked softmax: one pass over memory), else tfjs ops written out from each forward formula (on
 * the GPU backend's kernels). Checked against the composite's gradients on the CPU backend
 * (test/gpu/fusedKernels.webgpu.test.ts, test/engine/nativeFused.test.ts). The GPU attention
 * kernel has none (training runs the composite attention there); the native backend's tiled
 * attention has its backward kernel (test/engine/flashAttention.test.ts).
 *
 * A backward kernel that yields two gradients at once is run by each input's gradient that is
 * asked for: tfjs computes only the inputs on the path to the loss (a frozen norm weight gets
 * none), and a tensor made for one input's gradient cannot outlive that gradient's scope.
 */

type Grad = tf.GradConfig['gradFunc'];

/** Output `i` of a backward kernel with several outputs. */
const output = (kernel: FusedKernel, inputs: tf.NamedTensorMap, attrs: object, i: number) => runFused<tf.Tensor[]>(kernel, inputs, attrs)[i];

/** y = x·r·w, r = (mean(x²) + eps)^(−½):  dw = Σ_rows dy·x·r;  dx = r·(dy·w − x·r²·mean(dy·w·x)). */
const rmsNormGrad: Grad = (dy, [x, weight], attrs) => {
  const d = dy as tf.Tensor;
  const eps = (attrs as { eps: number }).eps;
  if (fusable(FUSED.rmsNormGrad, x, weight, d)) {
    const run = (i: number) => () => output(FUSED.rmsNormGrad, { x, weight, dy: d }, { eps }, i);
    return { x: run(0), weight: run(1) };
  }
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
  const dx = () =>
    fusable(FUSED.ropeGrad, d, cos, sin)
      ? runFused<tf.Tensor>(FUSED.ropeGrad, { dy: d, cos, sin })
      : tf.reshape(tf.transpose(applyRope(d as tf.Tensor4D, cos, tf.neg(sin)), [0, 2, 1, 3]), x.shape);
  const halves = () => {
    const [x1, x2] = tf.split(tf.transpose(x, [0, 2, 1, 3]), 2, -1);
    const [d1, d2] = tf.split(d, 2, -1);
    return { x1, x2, d1, d2 };
  };
  return {
    x: dx,
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
  if (fusable(FUSED.swigluGrad, gate, up, d)) {
    const run = (i: number) => () => output(FUSED.swigluGrad, { gate, up, dy: d }, {}, i);
    return { gate: run(0), up: run(1) };
  }
  const s = tf.sigmoid(gate);
  return {
    gate: () => tf.mul(tf.mul(d, up), tf.mul(s, tf.add(1, tf.mul(gate, tf.sub(1, s))))),
    up: () => tf.mul(d, tf.mul(gate, s)),
  };
};

/**
 * p = softmax(scale·s + mask):  ds = scale·p·(dp − Σ dp·p). The mask is a constant (no gradient).
 */
const maskedSoftmaxGrad: Grad = (dp, [p], attrs) => {
  const d = dp as tf.Tensor;
  const scale = (attrs as { scale: number }).scale;
  return {
    s: () =>
      fusable(FUSED.maskedSoftmaxGrad, p, d)
        ? runFused<tf.Tensor>(FUSED.maskedSoftmaxGrad, { p, dp: d }, { scale })
        : tf.mul(tf.mul(p, tf.sub(d, tf.sum(tf.mul(d, p), -1, true))), scale),
  };
};

/**
 * The tiled attention's three gradients come from one backward kernel, run once here (not per
 * input): it recomputes the probabilities from the saved out and lse. The lse output is for this
 * backward pass only; a gradient reaching it is not propagated.
 */
const flashAttentionGrad: Grad = (dys, [q, kT, v, rows, out, lse], attrs) => {
  const dy = (dys as tf.Tensor[])[0];
  const [dq, dkT, dv] = runFused<tf.Tensor[]>(FUSED.flashAttentionGrad, { q, kT, v, rows, out, lse, dy }, attrs);
  return { q: () => dq, kT: () => dkT, v: () => dv, rows: () => tf.zerosLike(rows) };
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
  { kernelName: FUSED.maskedSoftmax, outputsToSave: [true], gradFunc: maskedSoftmaxGrad },
  { kernelName: FUSED.flashAttention, inputsToSave: ['q', 'kT', 'v', 'rows'], outputsToSave: [true, true], gradFunc: flashAttentionGrad },
  { kernelName: FUSED.logSoftmax, outputsToSave: [true], gradFunc: logSoftmaxGrad },
  { kernelName: FUSED.targetLogprob, inputsToSave: ['logits', 'targets'], gradFunc: targetLogprobGrad },
  { kernelName: FUSED.loraAdd, inputsToSave: ['y', 'xa', 'b'], gradFunc: loraAddGrad },
  { kernelName: FUSED.matmulW16, inputsToSave: ['x', 'w'], gradFunc: matmulW16Grad },
];

/** Registers the gradients (once per thread), by every backend that registers fused kernels. */
export function registerFusedGradients(): void {
  for (const g of GRADIENTS) if (!tf.getGradient(g.kernelName)) tf.registerGradient(g as tf.GradConfig);
}
