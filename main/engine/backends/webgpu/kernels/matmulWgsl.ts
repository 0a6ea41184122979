/*
 * WGSL for C[b] = op(A[b]) · op(B[b]) in float32, op = identity or transpose (row-major storage).
 *
 * Tiled: a 16×16 workgroup computes a 64×64 block of C, each thread 4×4 outputs strided by 16 (so
 * neighbouring threads read neighbouring shared-memory words); K advances in slices of 16 staged
 * in workgroup memory, loaded so that neighbouring threads read neighbouring addresses whichever
 * operand is transposed.
 *
 * GEMV: for a few rows (decoding: M = batch ≤ 8), B is streamed once: 32 columns × 8 K-slices per
 * workgroup, each thread keeping M accumulators, the slices summed through workgroup memory.
 */

/**
 * The uniform block every matmul kernel reads. lda is A's row stride and aOff the column A's rows
 * start at (a window of K, when B is split by rows); accumulate adds to C instead of writing it;
 * aShift, bShift, cShift are where each operand starts in its binding (a window bound from a
 * 256-byte-aligned offset); ldc is C's row stride and cCol the column C's window starts at (when
 * a transposed B is split by rows, each window fills some columns of C).
 */
export const MATMUL_UNIFORMS = `struct Dims { M: u32, N: u32, K: u32, strideA: u32, strideB: u32, batch: u32, lda: u32, aOff: u32, accumulate: u32, aShift: u32, bShift: u32, cShift: u32, ldc: u32, cCol: u32 };`;

/** C[i] = v, or C[i] += v when accumulating over windows of K. */
const STORE = `fn store(i: u32, v: f32) { let j = d.cShift + i; if (d.accumulate == 1u) { C[j] = C[j] + v; } else { C[j] = v; } }`;

export const TILE = 64;

/**
 * How B is stored: float32, or 16-bit weights packed two to a 32-bit word along its rows (the
 * low half holds the even column), unpacked to float32 as they are read. WGSL's unpack2x16float
 * is core, so F16 storage needs no shader-f16; bfloat16 is the top half of a float32.
 */
export type BFormat = 'f32' | 'f16' | 'bf16';

/** B's binding and `loadB(base, row, col)` in B's storage layout ([K, N], or [N, K] transposed). */
function bStorage(format: BFormat, tb: boolean): string {
  const ld = tb ? 'd.K' : 'd.N';
  if (format === 'f32') {
    return `@group(0) @binding(1) var<storage, read> B: array<f32>;
fn loadB(base: u32, r: u32, c: u32) -> f32 { return B[base + r * ${ld} + c]; }`;
  }
  const halves =
    format === 'f16'
      ? 'let v = unpack2x16float(w); return select(v.x, v.y, (c & 1u) == 1u);'
      : 'return select(bitcast<f32>(w << 16u), bitcast<f32>(w & 0xffff0000u), (c & 1u) == 1u);';
  return `@group(0) @binding(1) var<storage, read> B: array<u32>;
fn loadB(base: u32, r: u32, c: u32) -> f32 { let w = B[base + r * ((${ld} + 1u) / 2u) + c / 2u]; ${halves} }`;
}

/** op(A)[m, k] as an address, and op(B)[k, n] as a load, for each transpose flag. */
function addressing(ta: boolean, tb: boolean): { a: string; b: string } {
  return {
    a: ta ? 'aBase + k * d.M + m' : 'aBase + m * d.lda + d.aOff + k',
    b: tb ? 'loadB(bBase, n, k)' : 'loadB(bBase, k, n)',
  };
}

/** Stages one 16-deep K slice of op(A) and op(B) in workgroup memory (4 elements of each per thread). */
function tileLoads(ta: boolean, tb: boolean): string {
  const ad = addressing(ta, tb);
  // Which of the tile's coordinates varies fastest across threads when loading (coalesced reads).
  const aLoad = ta ? 'let kl = idx / 64u; let ml = idx % 64u;' : 'let ml = idx / 16u; let kl = idx % 16u;';
  const bLoad = tb ? 'let nl = idx / 16u; let kl = idx % 16u;' : 'let kl = idx / 64u; let nl = idx % 64u;';
  return `
    for (var i = 0u; i < 4u; i++) {
      let idx = t + i * 256u;
      {
        ${aLoad}
        let m = m0 + ml;
        let k = k0 + kl;
        var v = 0.0;
        if (m < d.M && k < d.K) { v = A[${ad.a}]; }
        As[kl * 64u + ml] = v;
      }
      {
        ${bLoad}
        let n = n0 + nl;
        let k = k0 + kl;
        var v = 0.0;
        if (n < d.N && k < d.K) { v = ${ad.b}; }
        Bs[kl * 64u + nl] = v;
      }
    }`;
}

export function tiledMatmulWgsl(ta: boolean, tb: boolean, format: BFormat = 'f32'): string {
  return `
${MATMUL_UNIFORMS}
@group(0) @binding(0) var<storage, read> A: array<f32>;
${bStorage(format, tb)}
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> d: Dims;

${STORE}
var<workgroup> As: array<f32, 1024>; // [16 k][64 m]
var<workgroup> Bs: array<f32, 1024>; // [16 k][64 n]

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let batch = wid.z;
  let aBase = d.aShift + batch * d.strideA;
  let bBase = d.bShift + batch * d.strideB;
  let m0 = wid.y * 64u;
  let n0 = wid.x * 64u;
  let t = lid.y * 16u + lid.x;
  var acc: array<array<f32, 4>, 4>;
  for (var k0 = 0u; k0 < d.K; k0 += 16u) {
${tileLoads(ta, tb)}
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk++) {
      var a: array<f32, 4>;
      var b: array<f32, 4>;
      for (var i = 0u; i < 4u; i++) {
        a[i] = As[kk * 64u + lid.y + 16u * i];
        b[i] = Bs[kk * 64u + lid.x + 16u * i];
      }
      for (var i = 0u; i < 4u; i++) {
        for (var j = 0u; j < 4u; j++) { acc[i][j] = fma(a[i], b[j], acc[i][j]); }
      }
    }
    workgroupBarrier();
  }
  let cBase = batch * d.M * d.N;
  for (var i = 0u; i < 4u; i++) {
    let m = m0 + lid.y + 16u * i;
    for (var j = 0u; j < 4u; j++) {
      let n = n0 + lid.x + 16u * j;
      if (m < d.M && n < d.N) { store(cBase + m * d.ldc + d.cCol + n, acc[i][j]); }
    }
  }
}
`;
}

/** Rows at most this many take the GEMV kernel. */
export const GEMV_MAX_ROWS = 8;

export function gemvWgsl(rows: number, format: BFormat = 'f32'): string {
  return `
${MATMUL_UNIFORMS}
@group(0) @binding(0) var<storage, read> A: array<f32>;
${bStorage(format, false)}
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> d: Dims;

${STORE}
var<workgroup> partial: array<f32, ${rows * 256}>; // [row][slice][column]

@compute @workgroup_size(32, 8, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let batch = wid.z;
  let aBase = d.aShift + batch * d.strideA;
  let bBase = d.bShift + batch * d.strideB;
  let n = wid.x * 32u + lid.x;
  var acc: array<f32, ${rows}>;
  if (n < d.N) {
    for (var k = lid.y; k < d.K; k += 8u) {
      let bv = loadB(bBase, k, n);
      for (var m = 0u; m < ${rows}u; m++) { acc[m] = fma(A[aBase + m * d.lda + d.aOff + k], bv, acc[m]); }
    }
  }
  for (var m = 0u; m < ${rows}u; m++) { partial[(m * 8u + lid.y) * 32u + lid.x] = acc[m]; }
  workgroupBarrier();
  if (lid.y == 0u && n < d.N) {
    let cBase = batch * d.M * d.N;
    for (var m = 0u; m < ${rows}u; m++) {
      var s = 0.0;
      for (var j = 0u; j < 8u; j++) { s += partial[(m * 8u + j) * 32u + lid.x]; }
      store(cBase + m * d.ldc + d.cCol + n, s);
    }
  }
}
`;
}

/**
 * GEMV against a transposed B (stored [N, K], e.g. a tied LM head read from the embedding): a
 * workgroup takes 8 columns, 32 lanes each walking K, so both A's rows and B's rows are read by
 * neighbouring lanes at neighbouring addresses; the lanes' sums meet in workgroup memory.
 */
export function gemvTransposedWgsl(rows: number, format: BFormat = 'f32'): string {
  return `
${MATMUL_UNIFORMS}
@group(0) @binding(0) var<storage, read> A: array<f32>;
${bStorage(format, true)}
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> d: Dims;
${STORE}
var<workgroup> partial: array<f32, ${rows * 256}>; // [row][column][lane]

@compute @workgroup_size(32, 8, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let batch = wid.z;
  let aBase = d.aShift + batch * d.strideA;
  let bBase = d.bShift + batch * d.strideB;
  let n = wid.x * 8u + lid.y;
  var acc: array<f32, ${rows}>;
  if (n < d.N) {
    for (var k = lid.x; k < d.K; k += 32u) {
      let bv = loadB(bBase, n, k);
      for (var m = 0u; m < ${rows}u; m++) { acc[m] = fma(A[aBase + m * d.lda + d.aOff + k], bv, acc[m]); }
    }
  }
  for (var m = 0u; m < ${rows}u; m++) { partial[(m * 8u + lid.y) * 32u + lid.x] = acc[m]; }
  workgroupBarrier();
  if (lid.x == 0u && n < d.N) {
    let cBase = batch * d.M * d.N;
    for (var m = 0u; m < ${rows}u; m++) {
      var s = 0.0;
      for (var j = 0u; j < 32u; j++) { s += partial[(m * 8u + lid.y) * 32u + j]; }
      store(cBase + m * d.ldc + d.cCol + n, s);
    }
  }
}
`;
}
