/**
 * The native tensor backend's functions in the addon (`addon.nd`, native/src/ndApi*.cc). Tensors
 * live in native memory as opaque buffers; every kernel allocates and returns its output and
 * never writes to its inputs.
 */

/** An opaque handle to a block of native memory (or a view into a mapped weight file). */
export type Buf = object & { readonly __nativeBuffer: unique symbol };

/** Storage kinds: 0 float32, 1 int32 (bool as 0/1), 2 bfloat16, 3 float16 (the last two read as float32). */
export type Kind = 0 | 1 | 2 | 3;
export const KIND = { f32: 0, i32: 1, bf16: 2, f16: 3 } as const;

/** Element-wise maps (native/src/ndElementwise.h NdUnary). */
export const UNARY = {
  Abs: 0,
  Neg: 1,
  Exp: 2,
  Log: 3,
  Sqrt: 4,
  Rsqrt: 5,
  Square: 6,
  Sigmoid: 7,
  Sign: 8,
  Floor: 9,
  Tanh: 10,
  Softplus: 11,
  LogicalNot: 12,
  Ceil: 13,
  Round: 14,
  Relu: 15,
  Log1p: 16,
  Reciprocal: 17,
} as const;

/** Binary ops with broadcasting (NdBinary); 6–13 write bool. */
export const BINARY = {
  Add: 0,
  Sub: 1,
  Multiply: 2,
  RealDiv: 3,
  Maximum: 4,
  Minimum: 5,
  Equal: 6,
  NotEqual: 7,
  Greater: 8,
  GreaterEqual: 9,
  Less: 10,
  LessEqual: 11,
  LogicalAnd: 12,
  LogicalOr: 13,
  FloorDiv: 14,
  SquaredDifference: 15,
  Pow: 16,
} as const;

/** Reductions over the middle axis of [outer, axis, inner] (NdReduce). */
export const REDUCE = { Sum: 0, Mean: 1, Max: 2, Min: 3, ArgMax: 4, ArgMin: 5, Prod: 6, Any: 7, All: 8 } as const;

/** How products with 16-bit weights run, and the number setHalfGemm takes for each. */
export const HALF_GEMM = { widen: 0, sbgemm: 1, packed: 2 } as const;
export type HalfGemm = keyof typeof HALF_GEMM;

export interface CpuReport {
  model: string;
  arch: string;
  /**
   * CPU extensions (the OS enables); `blasSbgemm`: whether the BLAS library has cblas_sbgemm;
   * `packedGemm`: whether the addon's packed BF16 × FP32 GEMM runs here (AVX2 + FMA).
   */
  features: Record<
    'avx2' | 'fma' | 'f16c' | 'avx512f' | 'avx512bf16' | 'amxBf16' | 'amxTile' | 'neon' | 'armBf16' | 'blasSbgemm' | 'packedGemm',
    boolean
  >;
  physicalCores: number;
  logicalCpus: number;
  /** The kernel set OpenBLAS chose for this CPU, e.g. 'Haswell', 'Zen', 'Cooperlake'. */
  blasCore: string;
  /**
   * How products with 16-bit weights run: 'widen' (panels widened to float32 for sgemm), 'packed'
   * (the addon's GEMM, widening inside its packing) or 'sbgemm' (see HalfGemmMode in backend.ts).
   */
  halfGemm: HalfGemm;
  /** The kernel decoding's matrix-vector products use, per weight dtype (see {@link GemvPath}). */
  gemv: { bf16: GemvPath; f16: GemvPath };
}

/**
 * Decoding's 16-bit matrix-vector kernels (native/src/halfGemv.h), one per CPU family, all in one
 * binary and chosen by cpuid: 'avx512bf16' (vdpbf16ps, activations rounded to bfloat16; BF16
 * weights only), 'avx512f', 'avx2' (AVX2 + FMA, F16C for F16 weights) and 'scalar' (any CPU).
 */
export type GemvPath = 'scalar' | 'avx2' | 'avx512f' | 'avx512bf16';
export const GEMV_PATHS: readonly GemvPath[] = ['avx512bf16', 'avx512f', 'avx2', 'scalar'];

export interface NdAddon {
  /** A copy of the values; 16-bit kinds take their bit patterns as a Uint16Array. */
  bufFromArray(values: Float32Array | Int32Array | Uint8Array | Uint16Array, kind: Kind): Buf;
  /** A copy of the values: Float32Array for float kinds, Int32Array, or Uint8Array with asBool. */
  bufRead(buf: Buf, asBool: boolean): Float32Array | Int32Array | Uint8Array;
  /** Frees the memory now (a view of a mapped file drops its reference to the map). */
  bufFree(buf: Buf): void;
  bufWiden(buf: Buf): Buf;
  /** A read-only view of `count` elements at `byteOffset` of a file, mapped once per process. */
  mapTensor(path: string, byteOffset: number, count: number, kind: Kind): Buf;
  /** Bytes held by live tensors, bytes of freed blocks kept for reuse, and files mapped (process-wide). */
  memory(): { nativeBytes: number; cachedBytes: number; mappedFiles: number };
  /** Hands the blocks kept for reuse back to the OS. */
  trimCache(): void;
  cpu(): CpuReport;
  /** Sets how products with 16-bit weights run: HALF_GEMM's number for the mode. */
  setHalfGemm(mode: (typeof HALF_GEMM)[HalfGemm]): void;
  /** y [m, n] = x [m, k] · wᵀ with w [n, k] bf16 or f16, through `path`; throws when this CPU cannot run it. */
  gemv(path: GemvPath, x: Buf, w: Buf, m: number, n: number, k: number): Buf;
  /** y_i [m, n_i] = x [m, k] · w_iᵀ for 16-bit w_i [n_i, k] of one kind, in one pass of the kernel threads. */
  gemvMany(x: Buf, ws: Buf[], m: number, k: number): Buf[];
  /** Why this process cannot run `path` for weights of `kind` (a missing CPU feature...), or ''. */
  gemvUnavailable(path: GemvPath, kind: Kind): string;
  /** The path decoding's products with weights of `kind` use now. */
  gemvPath(kind: Kind): GemvPath;
  /** Chooses that path (process-wide); throws, changing nothing, when this CPU cannot run it. */
  setGemvPath(kind: Kind, path: GemvPath): void;
  /** The best of `passes` timed reads of a fresh `bytes`-byte buffer by the kernel threads. */
  readBandwidth(bytes: number, passes: number): { bytesPerSecond: number; bytes: number; threads: number };

  unary(op: number, x: Buf): Buf;
  binary(op: number, a: Buf, aShape: number[], b: Buf, bShape: number[], outShape: number[]): Buf;
  select(cond: Buf, t: Buf, e: Buf): Buf;
  cast(x: Buf, kind: Kind, toBool: boolean): Buf;
  clip(x: Buf, lo: number, hi: number): Buf;
  addN(inputs: Buf[]): Buf;
  reduce(op: number, x: Buf, outer: number, axis: number, inner: number): Buf;
  softmax(x: Buf, rows: number, cols: number): Buf;
  topk(x: Buf, rows: number, cols: number, k: number): [Buf, Buf];

  strided(x: Buf, shape: number[], strides: number[], offset: number): Buf;
  pad(x: Buf, shape: number[], before: number[], after: number[], valueBits: number): Buf;
  concat(inputs: Buf[], blocks: number[], outer: number): Buf;
  split(x: Buf, blocks: number[], outer: number): Buf[];
  tile(x: Buf, shape: number[], reps: number[]): Buf;
  gather(x: Buf, indices: Buf, outer: number, axisSize: number, inner: number): Buf;
  gatherNd(x: Buf, indices: Buf, numSlices: number, strides: number[], sliceSize: number): Buf;
  scatterNd(indices: Buf, updates: Buf, numSlices: number, strides: number[], sliceSize: number, outSize: number): Buf;
  fill(kind: Kind, count: number, valueBits: number): Buf;
  /** [N, 2] log-sum-exp and entropy of softmax(h·wᵀ), h [N, H], w [V, H] (16-bit or float32). */
  vocabStats(h: Buf, w: Buf, N: number, V: number, H: number): Buf;
  /** Gradients of vocabStats: [dh] or [dh, dW]. */
  vocabStatsGrad(h: Buf, w: Buf, stats: Buf, dstats: Buf, N: number, V: number, H: number, weightGrad: boolean): Buf[];
  /** RMSNorm of rows: [y, r] with r = 1/√(mean(x²) + eps) per row. */
  rmsNorm(x: Buf, w: Buf, R: number, D: number, eps: number): [Buf, Buf];
  rmsNormGrad(x: Buf, w: Buf, dy: Buf, R: number, D: number, eps: number): [Buf, Buf];
  /** silu(g)·u. */
  swiglu(g: Buf, u: Buf): Buf;
  swigluGrad(g: Buf, u: Buf, dy: Buf): [Buf, Buf];
  /** Rotate-half RoPE of [B, H, T, D] heads (read as [B, T, H, D] with fromBTHD); `inverse` for the backward. */
  rope(x: Buf, cos: Buf, sin: Buf, B: number, H: number, T: number, D: number, perRow: boolean, fromBTHD: boolean, inverse: boolean): Buf;
  /** softmax(scale·s + mask) over rows of S, s [B, K, G·T, S], mask [T, S] or [B, 1, T, S]. */
  maskedSoftmax(s: Buf, mask: Buf, B: number, K: number, GT: number, T: number, S: number, perRow: boolean, scale: number): Buf;
  maskedSoftmaxGrad(p: Buf, dp: Buf, rows: number, S: number, scale: number): Buf;
  /**
   * Tiled causal attention (native/src/flashAttention.h): q [B, H, T, D], kT [B, KVH, D, S],
   * v [B, KVH, S, D], rows int32 [B, 2] (start, pad) → [out [B, T, H·D], lse [B, H, T]].
   */
  flashAttention(q: Buf, kT: Buf, v: Buf, rows: Buf, B: number, H: number, KVH: number, T: number, S: number, D: number, window: number, scale: number): [Buf, Buf];
  /** Its gradients [dq, dkT, dv] from the saved out and lse, and dOut [B, T, H·D]. */
  flashAttentionGrad(q: Buf, kT: Buf, v: Buf, out: Buf, lse: Buf, dOut: Buf, rows: Buf, B: number, H: number, KVH: number, T: number, S: number, D: number, window: number, scale: number): [Buf, Buf, Buf];
  matmul(
    a: Buf,
    b: Buf,
    batch: number,
    m: number,
    n: number,
    k: number,
    transA: boolean,
    transB: boolean,
    strideA: number,
    strideB: number,
  ): Buf;
}
