/*
 * WGSL of decoding's matrix-vector products (one token: y = x·W), written for memory bandwidth:
 * every weight load is 16 bytes (4 float32 or 8 packed 16-bit values), consecutive threads read
 * consecutive 16-byte chunks of a row, and each workgroup splits K over its threads (split-K
 * inside the workgroup, summed through workgroup memory). Epilogues fuse what follows the product:
 * bias, the residual add, or SwiGLU.
 */

/** How a weight's values are stored: float32, or two 16-bit values per u32 word (low half first). */
export type GemvFormat = 'f32' | 'f16' | 'bf16';

/** Columns (output values) one thread handles per 16-byte load. */
export function columnsPerLoad(format: GemvFormat): number {
  return format === 'f32' ? 4 : 8;
}

/** The WGSL array type of a weight binding. */
function weightType(format: GemvFormat): string {
  return format === 'f32' ? 'array<vec4<f32>>' : 'array<vec4<u32>>';
}

/** Unpacks two 16-bit values of a u32 word (low half first). */
function unpackFn(format: GemvFormat): string {
  if (format === 'f16') return 'fn unpack2(w: u32) -> vec2<f32> { return unpack2x16float(w); }';
  return 'fn unpack2(w: u32) -> vec2<f32> { return vec2<f32>(bitcast<f32>(w << 16u), bitcast<f32>(w & 0xffff0000u)); }';
}

/** `acc0` (and `acc1` for 16-bit) += xv · one 16-byte load `w`. */
function accumulate(format: GemvFormat, acc: [string, string], load: string): string {
  if (format === 'f32') return `${acc[0]} += xv * ${load};`;
  return `let w = ${load};
      ${acc[0]} += xv * vec4<f32>(unpack2(w.x), unpack2(w.y));
      ${acc[1]} += xv * vec4<f32>(unpack2(w.z), unpack2(w.w));`;
}

/**
 * Kinds of column GEMV (weights held [in, out], the GPU layout):
 * - 'concat': up to three matrices (Q, K, V) side by side: y = [x·W0 | x·W1 | x·W2] + bias;
 * - 'residual': y += x·W + bias (the residual stream, updated in place);
 * - 'swiglu': y = silu(x·W0 + b0) · (x·W1 + b1), both matrices over the same columns.
 * An untied LM head is a 'concat' of one matrix (with a zero bias).
 */
export type ColumnGemvKind = 'concat' | 'residual' | 'swiglu';

export interface ColumnGemvShape {
  kind: ColumnGemvKind;
  format: GemvFormat;
  /** Rows of each weight (the input length). */
  K: number;
  /** Columns of each matrix (a multiple of 8). */
  N: number[];
  /** Column threads per workgroup (a power of two ≤ 256); the other 256 / TC threads split K. */
  TC: number;
}

/** Workgroups of one matrix: its 16-byte column chunks over TC threads. */
export function columnWorkgroups(N: number, format: GemvFormat, TC: number): number {
  return Math.ceil(N / columnsPerLoad(format) / TC);
}

/**
 * Column threads for a matrix of N columns: as many as keep at least 64 workgroups busy (down to
 * 4), so a narrow matrix still spreads over the GPU, with the rest of the 256 threads splitting K.
 */
export function columnThreads(N: number, format: GemvFormat): number {
  const chunks = N / columnsPerLoad(format);
  let tc = 64;
  while (tc > 4 && chunks / tc < 64) tc /= 2;
  return tc;
}

/**
 * The column GEMV. Bindings: X (input vector), W0[, W1, W2], B (bias of all outputs, concatenated),
 * Y (output). Dispatch: one workgroup per TC chunks of each matrix ('concat': the matrices' groups
 * one after another; otherwise those of N[0]).
 */
export function columnGemvWgsl(s: ColumnGemvShape): string {
  const C = columnsPerLoad(s.format);
  const V = s.format === 'f32' ? 1 : 2;
  const TS = 256 / s.TC;
  const mats = s.kind === 'swiglu' ? 2 : s.kind === 'concat' ? s.N.length : 1;
  const weights = Array.from({ length: mats }, (_, i) => `@group(0) @binding(${i + 1}) var<storage, read> W${i}: ${weightType(s.format)};`);
  const yBinding = mats + 2;
  const groups = s.N.map((n) => columnWorkgroups(n, s.format, s.TC));
  const accs = s.kind === 'swiglu' ? 2 * V : V;
  const decl = Array.from({ length: accs }, (_, i) => `var acc${i} = vec4<f32>(0.0);`).join('\n  ');
  const loop = (m: number, acc: [string, string]) => `
    for (var k = s; k < ${s.K}u; k += ${TS}u) {
      let xv = X[k];
      ${accumulate(s.format, acc, `W${m}[k * ${s.N[Math.min(m, s.N.length - 1)] / C}u + c]`)}
    }`;
  let body: string;
  if (s.kind === 'concat') {
    const branches = s.N.map((_, m) => {
      const first = groups.slice(0, m).reduce((a, b) => a + b, 0);
      const offset = s.N.slice(0, m).reduce((a, b) => a + b, 0);
      const cond = m === s.N.length - 1 ? '' : `if (g < ${first + groups[m]}u) `;
      return `${cond}{ c = (g - ${first}u) * ${s.TC}u + t; col0 = ${offset}u; n = ${s.N[m]}u;
    if (c * ${C}u < n) {${loop(m, ['acc0', 'acc1'])} } }`;
    });
    body = branches.join(' else ');
  } else {
    const both = s.kind === 'swiglu' ? loop(1, V === 1 ? ['acc1', ''] : ['acc2', 'acc3']) : '';
    body = `c = g * ${s.TC}u + t; n = ${s.N[0]}u;
  if (c * ${C}u < n) {${loop(0, ['acc0', 'acc1'])}${both} }`;
  }
  return `
${s.format === 'f32' ? '' : unpackFn(s.format)}
@group(0) @binding(0) var<storage, read> X: array<f32>;
${weights.join('\n')}
@group(0) @binding(${mats + 1}) var<storage, read> B: array<f32>;
@group(0) @binding(${yBinding}) var<storage, read_write> Y: array<f32>;
var<workgroup> red: array<vec4<f32>, ${256 * accs}>;
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let g = wid.x;
  let t = lid % ${s.TC}u;
  let s = lid / ${s.TC}u;
  var c = 0u;
  var col0 = 0u;
  var n = 0u;
  ${decl}
  ${body}
  ${Array.from({ length: accs }, (_, i) => `red[${i * 256}u + lid] = acc${i};`).join('\n  ')}
  workgroupBarrier();
  for (var half = ${TS / 2}u; half > 0u; half >>= 1u) {
    if (s < half) {
      ${Array.from({ length: accs }, (_, i) => `red[${i * 256}u + lid] += red[${i * 256}u + lid + half * ${s.TC}u];`).join('\n      ')}
    }
    workgroupBarrier();
  }
  if (s != 0u || c * ${C}u >= n) { return; }
  ${epilogue(s.kind, V)}
}
`;
}

/** Writes thread t's C columns from red[] (summed over K). */
function epilogue(kind: ColumnGemvKind, V: number): string {
  const val = (base: number) =>
    `array<f32, 8>(red[${base * 256}u + t].x, red[${base * 256}u + t].y, red[${base * 256}u + t].z, red[${base * 256}u + t].w, ${
      V === 2
        ? `red[${(base + 1) * 256}u + t].x, red[${(base + 1) * 256}u + t].y, red[${(base + 1) * 256}u + t].z, red[${(base + 1) * 256}u + t].w`
        : '0.0, 0.0, 0.0, 0.0'
    })`;
  const C = V * 4;
  if (kind === 'swiglu') {
    return `let gv = ${val(0)};
  let uv = ${val(V)};
  for (var j = 0u; j < ${C}u; j++) {
    let o = c * ${C}u + j;
    let gate = gv[j] + B[o];
    Y[o] = gate / (1.0 + exp(-gate)) * (uv[j] + B[n + o]);
  }`;
  }
  const write = kind === 'residual' ? 'Y[o] = Y[o] + v[j] + B[o];' : 'Y[col0 + o] = v[j] + B[col0 + o];';
  return `let v = ${val(0)};
  for (var j = 0u; j < ${C}u; j++) {
    let o = c * ${C}u + j;
    ${write}
  }`;
}

/** Rows of a row GEMV per workgroup (32 threads each). */
export const ROWS_PER_WORKGROUP = 8;

/**
 * The row GEMV: y[r] = W[r, :]·x for W held [out, in] (a tied LM head: the embedding [V, H]).
 * 32 threads per row read consecutive 16-byte chunks. Bindings: X, W, Y. K must be a multiple of 8.
 */
export function rowGemvWgsl(format: GemvFormat, K: number, rows: number): string {
  const C = columnsPerLoad(format);
  const chunk =
    format === 'f32'
      ? 'acc += dot(W[r * CPR + j], vec4<f32>(X[j * 4u], X[j * 4u + 1u], X[j * 4u + 2u], X[j * 4u + 3u]));'
      : `let w = W[r * CPR + j];
      let x0 = vec4<f32>(X[j * 8u], X[j * 8u + 1u], X[j * 8u + 2u], X[j * 8u + 3u]);
      let x1 = vec4<f32>(X[j * 8u + 4u], X[j * 8u + 5u], X[j * 8u + 6u], X[j * 8u + 7u]);
      acc += dot(vec4<f32>(unpack2(w.x), unpack2(w.y)), x0) + dot(vec4<f32>(unpack2(w.z), unpack2(w.w)), x1);`;
  return `
${format === 'f32' ? '' : unpackFn(format)}
const CPR = ${K / C}u;
@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read> W: ${weightType(format)};
@group(0) @binding(2) var<storage, read_write> Y: array<f32>;
var<workgroup> red: array<f32, 256>;
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let lane = lid % 32u;
  let r = wid.x * ${ROWS_PER_WORKGROUP}u + lid / 32u;
  var acc = 0.0;
  if (r < ${rows}u) {
    for (var j = lane; j < CPR; j += 32u) {
      ${chunk}
    }
  }
  red[lid] = acc;
  workgroupBarrier();
  for (var half = 16u; half > 0u; half >>= 1u) {
    if (lane < half) { red[lid] += red[lid + half]; }
    workgroupBarrier();
  }
  if (lane == 0u && r < ${rows}u) { Y[r] = red[lid]; }
}
`;
}
