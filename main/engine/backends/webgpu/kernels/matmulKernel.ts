import * as tf from '@tensorflow/tfjs-core';
import { contextOf, type GpuContext } from '../gpuContext.js';
import { GEMV_MAX_ROWS, gemvWgsl, TILE, tiledMatmulWgsl } from './matmulWgsl.js';

/** The matmul problem of one BatchMatMul call, or null when its batch axes broadcast in a way the kernels do not cover. */
export interface MatmulShape {
  batch: number;
  M: number;
  N: number;
  K: number;
  /** Elements between consecutive batch entries of A and B (0: broadcast). */
  strideA: number;
  strideB: number;
  outShape: number[];
}

export function matmulShape(a: readonly number[], b: readonly number[], ta: boolean, tb: boolean): MatmulShape | null {
  const [ar, br] = [a.length, b.length];
  const M = ta ? a[ar - 1] : a[ar - 2];
  const K = ta ? a[ar - 2] : a[ar - 1];
  const Kb = tb ? b[br - 1] : b[br - 2];
  const N = tb ? b[br - 2] : b[br - 1];
  if (K !== Kb) throw new Error(`matmul: inner dimensions differ (${K} vs ${Kb}) for shapes [${a}] and [${b}]`);
  const outerA = a.slice(0, -2);
  const outerB = b.slice(0, -2);
  const batchA = outerA.reduce((p, x) => p * x, 1);
  const batchB = outerB.reduce((p, x) => p * x, 1);
  let outer: number[];
  if (batchA === batchB && (outerA.length === outerB.length ? outerA.every((x, i) => x === outerB[i]) : true)) {
    outer = outerA.length >= outerB.length ? outerA : outerB;
  } else if (batchB === 1) {
    outer = outerA;
  } else if (batchA === 1) {
    outer = outerB;
  } else {
    return null;
  }
  const batch = Math.max(batchA, batchB);
  return { batch, M, N, K, strideA: batchA === 1 ? 0 : M * K, strideB: batchB === 1 ? 0 : K * N, outShape: [...outer, M, N] };
}

/** Records C = op(A)·op(B) on the GPU; A and B are float32. */
export function runMatmul(ctx: GpuContext, a: tf.TensorInfo, b: tf.TensorInfo, ta: boolean, tb: boolean, s: MatmulShape): tf.TensorInfo {
  const uniforms = new Uint32Array([s.M, s.N, s.K, s.strideA, s.strideB, s.batch]).buffer;
  const outputs = [{ shape: s.outShape, dtype: 'float32' as const }];
  if (s.M <= GEMV_MAX_ROWS && !ta && !tb) {
    return ctx.run({
      key: `gemv_${s.M}`,
      code: () => gemvWgsl(s.M),
      workgroups: [Math.ceil(s.N / 32), 1, s.batch],
      inputs: [a, b],
      outputs,
      uniforms,
    })[0];
  }
  return ctx.run({
    key: `matmul_tiled_${ta ? 't' : 'n'}${tb ? 't' : 'n'}`,
    code: () => tiledMatmulWgsl(ta, tb),
    workgroups: [Math.ceil(s.N / TILE), Math.ceil(s.M / TILE), s.batch],
    inputs: [a, b],
    outputs,
    uniforms,
  })[0];
}

/**
 * tfjs's BatchMatMul on the 'webgpu' backend, replaced: float32 products of any transpose go to
 * ClawLoop's kernels; other dtypes and unusual batch broadcasts go to tfjs's own kernel.
 */
export function batchMatMulKernel(fallback: tf.KernelFunc): tf.KernelFunc {
  return (args) => {
    const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
    const { transposeA, transposeB } = args.attrs as { transposeA: boolean; transposeB: boolean };
    const s = a.dtype === 'float32' && b.dtype === 'float32' ? matmulShape(a.shape, b.shape, transposeA, transposeB) : null;
    if (!s || s.batch * s.M * s.N === 0 || s.K === 0) return fallback(args);
    return runMatmul(contextOf(args.backend), a, b, transposeA, transposeB, s);
  };
}
