import * as tf from '@tensorflow/tfjs-core';
import { initBackend, type BackendName } from '../../main/engine/backends/backend.js';
import { chained, type ErrorModel } from './numeric.js';

/**
 * Runs `f` on the pure-JS CPU backend (the composite ops, the reference) and on `backend` (the
 * fused kernels), and returns both results read back, with the kernels the second run used (from
 * tf.profile), so a test can check that the fused kernel really ran. `f` builds its tensors from
 * host arrays, so each backend starts from the same bits. `backend` stays active after.
 */
export async function onCpuAnd(
  backend: BackendName,
  f: () => tf.Tensor | tf.Tensor[],
): Promise<{ cpu: Float32Array[]; other: Float32Array[]; kernels: string[] }> {
  const read = async () => {
    const out = tf.tidy(f);
    const list = Array.isArray(out) ? out : [out];
    const values = await Promise.all(list.map((t) => t.data()));
    tf.dispose(list);
    return values.map((v) => Float32Array.from(v));
  };
  await initBackend('cpu');
  const cpu = await read();
  await initBackend(backend);
  let other: Float32Array[] = [];
  const profile = await tf.profile(async () => {
    other = await read();
  });
  return { cpu, other, kernels: profile.kernelNames };
}

/** {@link onCpuAnd} on 'webgpu'. */
export async function onBoth(f: () => tf.Tensor | tf.Tensor[]): Promise<{ cpu: Float32Array[]; gpu: Float32Array[]; kernels: string[] }> {
  const { cpu, other, kernels } = await onCpuAnd('webgpu', f);
  return { cpu, gpu: other, kernels };
}

/**
 * WGSL's exp and log are not correctly rounded: the WGSL spec allows exp(x) 3 + 2·|x| ULP and log
 * 3 ULP (https://www.w3.org/TR/WGSL/#floating-point-accuracy). A value through `calls` of them,
 * with arguments up to `maxArg` in magnitude, gets that many more roundings on its path.
 */
export function withTranscendentals(m: ErrorModel, calls: number, maxArg: number): ErrorModel {
  return chained(m, calls * Math.ceil(3 + 2 * maxArg));
}

/** Deterministic values in [−scale, scale). */
export function values(n: number, seed: number, scale = 1): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = ((s / 2 ** 32) * 2 - 1) * scale;
  }
  return out;
}
