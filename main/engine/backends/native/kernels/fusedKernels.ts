import type * as tf from '@tensorflow/tfjs-core';
import { FUSED } from '../../../ops/fusedKernels.js';
import { KIND } from '../ndAddon.js';
import { nativeKernel, size, stored, stridesOf, temp, words } from './kernelUtil.js';

/**
 * The native backend's kernels for the fused ops the engine calls by name (ops/fusedKernels.ts:
 * names, inputs and attributes are the same on every backend that has them); their gradients are
 * registered once for all backends (ops/fusedGradients.ts) and run the backward kernels here.
 */

const lastDim = (t: tf.TensorInfo) => t.shape[t.shape.length - 1];

export const FUSED_KERNELS: tf.KernelConfig[] = [
  nativeKernel(FUSED.vocabStats, (backend, { h, w }) => {
    const [N, H] = h.shape;
    const buf = backend.nd.vocabStats(words(backend, h), stored(backend, w), N, w.shape[0], H);
    return backend.makeOutput(buf, [N, 2], 'float32');
  }),
  nativeKernel(FUSED.vocabStatsGrad, (backend, { h, w, stats, dy }, attrs) => {
    const [N, H] = h.shape;
    const V = w.shape[0];
    const bufs = backend.nd.vocabStatsGrad(words(backend, h), stored(backend, w), words(backend, stats), words(backend, dy), N, V, H, attrs.weightGrad === true);
    return bufs.map((b, i) => backend.makeOutput(b, i === 0 ? [N, H] : [V, H], 'float32'));
  }),
  nativeKernel(FUSED.rmsNorm, (backend, { x, weight }, attrs) => {
    const D = lastDim(x);
    const [y, r] = backend.nd.rmsNorm(words(backend, x), words(backend, weight), size(x.shape) / D, D, attrs.eps as number);
    temp(r); // the backward kernel recomputes each row's r while it reads the row
    return backend.makeOutput(y, [...x.shape], 'float32');
  }),
  nativeKernel(FUSED.rmsNormGrad, (backend, { x, weight, dy }, attrs) => {
    const D = lastDim(x);
    const R = size(x.shape) / D;
    const [dx, dw] = backend.nd.rmsNormGrad(words(backend, x), words(backend, weight), words(backend, dy), R, D, attrs.eps as number);
    return [backend.makeOutput(dx, [...x.shape], 'float32'), backend.makeOutput(dw, [D], 'float32')];
  }),
  nativeKernel(FUSED.swiglu, (backend, { gate, up }) =>
    backend.makeOutput(backend.nd.swiglu(words(backend, gate), words(backend, up)), [...gate.shape], 'float32'),
  ),
  nativeKernel(FUSED.swigluGrad, (backend, { gate, up, dy }) =>
    backend.nd.swigluGrad(words(backend, gate), words(backend, up), words(backend, dy)).map((b) => backend.makeOutput(b, [...gate.shape], 'float32')),
  ),
  nativeKernel(FUSED.rope, (backend, { x, cos, sin }, attrs) => {
    // [B, T, H, D] → [B, H, T, D] in the rotating pass; keys (keysT) then → [B, H, D, T].
    const [B, T, H, D] = x.shape;
    const buf = backend.nd.rope(words(backend, x), words(backend, cos), words(backend, sin), B, H, T, D, cos.shape.length === 4, true, false);
    if (attrs.keysT !== true) return backend.makeOutput(buf, [B, H, T, D], 'float32');
    const s = stridesOf([B, H, T, D]);
    const keysT = backend.nd.strided(temp(buf), [B, H, D, T], [s[0], s[1], s[3], s[2]], 0);
    return backend.makeOutput(keysT, [B, H, D, T], 'float32');
  }),
  nativeKernel(FUSED.ropeGrad, (backend, { dy, cos, sin }) => {
    // The rotation by −θ, back from [B, H, T, D] to [B, T, H, D].
    const [B, H, T, D] = dy.shape;
    const buf = backend.nd.rope(words(backend, dy), words(backend, cos), words(backend, sin), B, H, T, D, cos.shape.length === 4, true, true);
    return backend.makeOutput(buf, [B, T, H, D], 'float32');
  }),
  nativeKernel(FUSED.maskedSoftmax, (backend, { s, mask }, attrs) => {
    const [B, K, GT, S] = s.shape;
    const T = mask.shape[mask.shape.length - 2];
    const buf = backend.nd.maskedSoftmax(words(backend, s), words(backend, mask), B, K, GT, T, S, mask.shape.length === 4, attrs.scale as number);
    return backend.makeOutput(buf, [...s.shape], 'float32');
  }),
  nativeKernel(FUSED.projectMany, (backend, inputs) => {
    // Weights of one 16-bit kind: one GEMV pass over all of them. Anything else: one product each.
    const { x } = inputs;
    const ws = Object.keys(inputs).filter((n) => n !== 'x').sort().map((n) => inputs[n]);
    const [R, K] = x.shape;
    const kinds = new Set(ws.map((w) => backend.data.get(w.dataId).kind));
    const kind = ws.length ? backend.data.get(ws[0].dataId).kind : KIND.f32;
    const half = kinds.size === 1 && (kind === KIND.bf16 || kind === KIND.f16);
    const xb = words(backend, x);
    const bufs = half
      ? backend.nd.gemvMany(xb, ws.map((w) => stored(backend, w)), R, K)
      : ws.map((w) => backend.nd.matmul(xb, stored(backend, w), 1, R, w.shape[0], K, false, true, 0, 0));
    return bufs.map((b, i) => backend.makeOutput(b, [R, ws[i].shape[0]], 'float32'));
  }),
  nativeKernel(FUSED.maskedSoftmaxGrad, (backend, { p, dp }, attrs) => {
    const S = lastDim(p);
    const buf = backend.nd.maskedSoftmaxGrad(words(backend, p), words(backend, dp), size(p.shape) / S, S, attrs.scale as number);
    return backend.makeOutput(buf, [...p.shape], 'float32');
  }),
];
