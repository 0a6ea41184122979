import * as tf from '@tensorflow/tfjs-core';
import { contextOf, type GpuContext } from '../gpuContext.js';
import { GEMV_MAX_ROWS, gemvTransposedWgsl, gemvWgsl, TILE, tiledMatmulWgsl, type BFormat } from './matmulWgsl.js';
import { COOP_K, COOP_TILE, coopMatmulWgsl } from './coopMatmulWgsl.js';

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

type Dispatch = [number, number, number];

/** One dispatch over a window of the problem (rows m0.. of A and C, rows k0.. of B). */
interface Piece {
  M: number;
  /** Columns of C this piece computes, from column cCol of C's ldc. */
  N: number;
  K: number;
  lda: number;
  aOff: number;
  ldc: number;
  cCol: number;
  accumulate: boolean;
  /** Byte ranges of A, B and C to bind (whole tensors when absent). */
  ranges?: Array<{ offset: number; size: number }>;
  /** How B is stored (default float32). */
  format?: BFormat;
}

/** A byte range bound from the 256-byte-aligned offset below it, and where the range starts in it (elements). */
function window(offset: number, size: number): { binding: { offset: number; size: number }; shift: number } {
  const aligned = Math.floor(offset / 256) * 256;
  return { binding: { offset: aligned, size: size + offset - aligned }, shift: (offset - aligned) / 4 };
}

function dispatch(ctx: GpuContext, a: tf.TensorInfo, b: tf.TensorInfo, c: tf.TensorInfo | null, ta: boolean, tb: boolean, s: MatmulShape, p: Piece): tf.TensorInfo {
  const w = p.ranges?.map((r) => window(r.offset, r.size));
  const shifts = w ? w.map((x) => x.shift) : [0, 0, 0];
  const uniforms = new Uint32Array([p.M, p.N, p.K, s.strideA, s.strideB, s.batch, p.lda, p.aOff, p.accumulate ? 1 : 0, ...shifts, p.ldc, p.cCol]).buffer;
  const outputs = [c ?? { shape: s.outShape, dtype: 'float32' as const }];
  const gemv = p.M <= GEMV_MAX_ROWS && !ta && !tb;
  const format = p.format ?? 'f32';
  const coop = ctx.coop;
  if (coop && format === 'f32' && !p.ranges && p.M % COOP_TILE === 0 && p.N % COOP_TILE === 0 && p.K % COOP_K === 0) {
    return ctx.run({
      key: `matmul_coop_${ta ? 't' : 'n'}${tb ? 't' : 'n'}`,
      code: () => coopMatmulWgsl(coop, ta, tb),
      workgroups: [p.N / COOP_TILE, p.M / COOP_TILE, s.batch],
      inputs: [a, b],
      outputs,
      uniforms,
    })[0];
  }
  const gemvT = p.M <= GEMV_MAX_ROWS && !ta && tb;
  const kernel = gemv
    ? { key: `gemv_${p.M}_${format}`, code: () => gemvWgsl(p.M, format), workgroups: [Math.ceil(p.N / 32), 1, s.batch] as Dispatch }
    : gemvT
      ? { key: `gemv_t_${p.M}_${format}`, code: () => gemvTransposedWgsl(p.M, format), workgroups: [Math.ceil(p.N / 8), 1, s.batch] as Dispatch }
      : {
          key: `matmul_tiled_${ta ? 't' : 'n'}${tb ? 't' : 'n'}_${format}`,
          code: () => tiledMatmulWgsl(ta, tb, format),
          workgroups: [Math.ceil(p.N / TILE), Math.ceil(p.M / TILE), s.batch] as Dispatch,
        };
  return ctx.run({
    ...kernel,
    inputs: [a, b],
    outputs,
    uniforms,
    windows: w ? new Map(w.map((x, i) => [i, x.binding])) : undefined,
  })[0];
}

/** How many rows of `rowBytes` fit one binding, leaving room for the alignment slack of a window. */
function rowsPerBinding(limit: number, rowBytes: number, total: number): number {
  const rows = Math.floor((limit - 256) / rowBytes);
  if (rows < 1) throw new Error(`webgpu: a matmul row of ${rowBytes} bytes does not fit one binding (${limit} bytes)`);
  return Math.min(rows, total);
}

/**
 * Records C = op(A)·op(B) on the GPU (A and B float32). When a plain product's operand is larger
 * than one binding may be (a vocabulary-sized head on a GPU that binds 128 MiB), it runs in
 * windows: rows of A and C, and rows of B whose partial products are added into C.
 */
export function runMatmul(ctx: GpuContext, a: tf.TensorInfo, b: tf.TensorInfo, ta: boolean, tb: boolean, s: MatmulShape): tf.TensorInfo {
  const limit = ctx.maxBinding;
  const bytes = (n: number) => n * 4;
  if (Math.max(bytes(s.batch * s.M * s.K), bytes((s.strideB ? s.batch : 1) * s.K * s.N), bytes(s.batch * s.M * s.N)) <= limit) {
    return dispatch(ctx, a, b, null, ta, tb, s, { M: s.M, N: s.N, K: s.K, lda: s.K, aOff: 0, ldc: s.N, cCol: 0, accumulate: false });
  }
  if (s.batch !== 1 || ta) {
    throw new Error(
      `webgpu: a ${ta ? 'transposed' : 'batched'} matmul [${a.shape}]·[${b.shape}] is larger than this GPU binds at once (${limit} bytes); use smaller batches, or --backend wasm`,
    );
  }
  return tb ? windowsOfTransposedB(ctx, a, b, s, limit) : windowsOfB(ctx, a, b, s, limit);
}

/** A·B in windows: rows of A and C, and rows of B (K) whose partial products are added into C. */
function windowsOfB(ctx: GpuContext, a: tf.TensorInfo, b: tf.TensorInfo, s: MatmulShape, limit: number): tf.TensorInfo {
  const bytes = (n: number) => n * 4;
  const mStep = rowsPerBinding(limit, bytes(Math.max(s.K, s.N)), s.M);
  const kStep = rowsPerBinding(limit, bytes(s.N), s.K);
  let c: tf.TensorInfo | null = null;
  for (let m0 = 0; m0 < s.M; m0 += mStep) {
    const M = Math.min(mStep, s.M - m0);
    for (let k0 = 0; k0 < s.K; k0 += kStep) {
      const K = Math.min(kStep, s.K - k0);
      const ranges = [
        { offset: bytes(m0 * s.K), size: bytes(M * s.K) },
        { offset: bytes(k0 * s.N), size: bytes(K * s.N) },
        { offset: bytes(m0 * s.N), size: bytes(M * s.N) },
      ];
      c = dispatch(ctx, a, b, c, false, false, s, { M, N: s.N, K, lda: s.K, aOff: k0, ldc: s.N, cCol: 0, accumulate: k0 > 0, ranges });
    }
  }
  return c!;
}

/** A·Bᵀ with B stored [N, K], in windows: rows of A and C, and rows of B, each filling columns of C. */
function windowsOfTransposedB(ctx: GpuContext, a: tf.TensorInfo, b: tf.TensorInfo, s: MatmulShape, limit: number): tf.TensorInfo {
  const bytes = (n: number) => n * 4;
  const mStep = rowsPerBinding(limit, bytes(Math.max(s.K, s.N)), s.M);
  const nStep = rowsPerBinding(limit, bytes(s.K), s.N);
  let c: tf.TensorInfo | null = null;
  for (let m0 = 0; m0 < s.M; m0 += mStep) {
    const M = Math.min(mStep, s.M - m0);
    for (let n0 = 0; n0 < s.N; n0 += nStep) {
      const N = Math.min(nStep, s.N - n0);
      const ranges = [
        { offset: bytes(m0 * s.K), size: bytes(M * s.K) },
        { offset: bytes(n0 * s.K), size: bytes(N * s.K) },
        { offset: bytes(m0 * s.N), size: bytes(M * s.N) },
      ];
      c = dispatch(ctx, a, b, c, false, true, s, { M, N, K: s.K, lda: s.K, aOff: 0, ldc: s.N, cCol: n0, accumulate: false, ranges });
    }
  }
  return c!;
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

/**
 * ClawMatMulW16: x [..., K] times a 16-bit weight matrix W [K, N] packed two halves to an int32
 * word along its rows (int32 [K, ceil(N/2)]); attrs cols (N), format ('f16' | 'bf16') and
 * transposeB (x [..., N] times Wᵀ, the backward pass). Computes in float32.
 */
export const matmulW16Kernel: tf.KernelFunc = ({ inputs, attrs, backend }) => {
  const { x, w } = inputs as { x: tf.TensorInfo; w: tf.TensorInfo };
  const { cols, format, transposeB } = attrs as { cols: number; format: BFormat; transposeB: boolean };
  const ctx = contextOf(backend);
  const rows = w.shape[0];
  const inner = x.shape[x.shape.length - 1];
  const M = tf.util.sizeFromShape(x.shape) / inner;
  const [K, N] = transposeB ? [cols, rows] : [rows, cols];
  if (inner !== K) throw new Error(`ClawMatMulW16: x has ${inner} columns; the weight needs ${K}`);
  const s: MatmulShape = { batch: 1, M, N, K, strideA: 0, strideB: 0, outShape: [...x.shape.slice(0, -1), N] };
  if (Math.max(M * K, M * N, rows * Math.ceil(cols / 2)) * 4 > ctx.maxBinding) {
    throw new Error(`webgpu: a 16-bit weight product [${x.shape}]·[${rows}, ${cols}] is larger than this GPU binds at once; use smaller batches`);
  }
  return dispatch(ctx, x, w, null, false, transposeB, s, { M, N, K, lda: K, aOff: 0, ldc: N, cCol: 0, accumulate: false, format });
};
