import { WORKGROUP_REDUCE } from '../kernels/wgslCommon.js';

/*
 * WGSL of one decoding step's small kernels (batch 1): RMSNorm, the Q/K norm + RoPE that writes
 * keys and values straight into the preallocated cache, and attention over the cache. Shapes are
 * compile-time constants (a pipeline per model shape); what changes per token is read from the
 * step buffer the host writes once per token.
 */

/**
 * The per-token step buffer (one queue.writeBuffer per token): the new token's position, the first
 * key position attention sees (a sliding window), sampling settings, then the RoPE table of this
 * position (cos of each frequency, then sin).
 */
export const STEP_STRUCT = `struct Step { pos: u32, start: u32, topK: u32, pad: u32, temperature: f32, topP: f32, draw: f32, pad2: f32, rope: array<f32> };`;

/** Bytes of the step buffer's header before `rope`. */
export const STEP_HEADER_BYTES = 32;

/** y = x · rsqrt(mean(x²) + eps) · g over one vector of H values. Bindings: X, G, Y. */
export function rmsNormWgsl(H: number, eps: number): string {
  return `
@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read> G: array<f32>;
@group(0) @binding(2) var<storage, read_write> Y: array<f32>;
${WORKGROUP_REDUCE}
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32) {
  var ss = 0.0;
  for (var i = lid; i < ${H}u; i += 256u) { let v = X[i]; ss += v * v; }
  let r = inverseSqrt(wgSum(ss, lid) / ${H}.0 + ${eps});
  for (var i = lid; i < ${H}u; i += 256u) { Y[i] = X[i] * r * G[i]; }
}
`;
}

/** The attention shapes of a model. */
export interface HeadShape {
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  /** Positions the cache holds. */
  capacity: number;
}

/**
 * Per head of the fused QKV output [q heads | k heads | v heads]: Qwen3's per-head RMSNorm of q
 * and k (when `qkNorm`), RoPE (rotate_half), then q into Q, and k and v into the cache at the step's
 * position (cache layout [position, kv head, D]). One workgroup per q and k head.
 * Bindings: QKV, S (step), Q, KC, VC[, QN, KN].
 */
export function ropeCacheWgsl(s: HeadShape, qkNorm: boolean, eps: number): string {
  const D = s.headDim;
  const half = D / 2;
  const NH = s.numHeads;
  const KVD = s.numKvHeads * D;
  const norm = qkNormWgsl(D, qkNorm, eps);
  const scaled = (x: string, i: string) => (qkNorm ? `${x} * r * normWeight(isK, ${i})` : x);
  return `
${STEP_STRUCT}
@group(0) @binding(0) var<storage, read> QKV: array<f32>;
@group(0) @binding(1) var<storage, read> S: Step;
@group(0) @binding(2) var<storage, read_write> Q: array<f32>;
@group(0) @binding(3) var<storage, read_write> KC: array<f32>;
@group(0) @binding(4) var<storage, read_write> VC: array<f32>;
${norm}
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let h = wid.x;
  let isK = h >= ${NH}u;
  let src = h * ${D}u;
  let r = headScale(src, lid);
  let base = S.pos * ${KVD}u + (h - ${NH}u) * ${D}u;
  for (var i = lid; i < ${half}u; i += 64u) {
    let x1 = ${scaled('QKV[src + i]', 'i')};
    let x2 = ${scaled(`QKV[src + i + ${half}u]`, `i + ${half}u`)};
    let c = S.rope[i];
    let sn = S.rope[${half}u + i];
    let o1 = x1 * c - x2 * sn;
    let o2 = x2 * c + x1 * sn;
    if (isK) {
      KC[base + i] = o1;
      KC[base + i + ${half}u] = o2;
      let v = ${(NH + s.numKvHeads) * D}u + (h - ${NH}u) * ${D}u;
      VC[base + i] = QKV[v + i];
      VC[base + i + ${half}u] = QKV[v + i + ${half}u];
    } else {
      Q[src + i] = o1;
      Q[src + i + ${half}u] = o2;
    }
  }
}
`;
}

/** Per-head RMSNorm of q and k (Qwen3): the head's scale and weights; ones when the model has none. Bindings 5, 6: QN, KN. */
function qkNormWgsl(D: number, qkNorm: boolean, eps: number): string {
  if (!qkNorm)
    return `
fn headScale(src: u32, lid: u32) -> f32 { return 1.0; }
fn normWeight(isK: bool, i: u32) -> f32 { return 1.0; }`;
  return `
@group(0) @binding(5) var<storage, read> QN: array<f32>;
@group(0) @binding(6) var<storage, read> KN: array<f32>;
var<workgroup> red: array<f32, 64>;
fn headScale(src: u32, lid: u32) -> f32 {
  var ss = 0.0;
  for (var i = lid; i < ${D}u; i += 64u) { let v = QKV[src + i]; ss += v * v; }
  red[lid] = ss;
  workgroupBarrier();
  for (var k = 32u; k > 0u; k >>= 1u) {
    if (lid < k) { red[lid] += red[lid + k]; }
    workgroupBarrier();
  }
  return inverseSqrt(red[0] / ${D}.0 + ${eps});
}
fn normWeight(isK: bool, i: u32) -> f32 { if (isK) { return KN[i]; } return QN[i]; }`;
}

/**
 * Attention of one query per head over the cached positions [start, pos]: scores into a scratch
 * row, softmax, then the weighted sum of values. One workgroup per query head (grouped-query:
 * head h reads kv head h / (heads / kv heads)). Bindings: Q, KC, VC, S (step), SC (scratch
 * [heads, capacity]), O.
 */
export function decodeAttentionWgsl(s: HeadShape): string {
  const D = s.headDim;
  const KVD = s.numKvHeads * D;
  const G = s.numHeads / s.numKvHeads;
  return `
${STEP_STRUCT}
@group(0) @binding(0) var<storage, read> Q: array<f32>;
@group(0) @binding(1) var<storage, read> KC: array<f32>;
@group(0) @binding(2) var<storage, read> VC: array<f32>;
@group(0) @binding(3) var<storage, read> S: Step;
@group(0) @binding(4) var<storage, read_write> SC: array<f32>;
@group(0) @binding(5) var<storage, read_write> O: array<f32>;
${WORKGROUP_REDUCE}
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let h = wid.x;
  let kv = (h / ${G}u) * ${D}u;
  let row = h * ${s.capacity}u;
  let n = S.pos + 1u;
  var m = -3.4e38;
  for (var t = S.start + lid; t < n; t += 256u) {
    var dot = 0.0;
    for (var d = 0u; d < ${D}u; d++) { dot += Q[h * ${D}u + d] * KC[t * ${KVD}u + kv + d]; }
    let sc = dot * ${1 / Math.sqrt(D)};
    SC[row + t] = sc;
    m = max(m, sc);
  }
  m = wgMax(m, lid);
  var l = 0.0;
  for (var t = S.start + lid; t < n; t += 256u) {
    let p = exp(SC[row + t] - m);
    SC[row + t] = p;
    l += p;
  }
  l = wgSum(l, lid);
  storageBarrier();
  for (var d = lid; d < ${D}u; d += 256u) {
    var acc = 0.0;
    for (var t = S.start; t < n; t++) { acc += SC[row + t] * VC[t * ${KVD}u + kv + d]; }
    O[h * ${D}u + d] = acc / l;
  }
}
`;
}

/**
 * Copies a prefill's keys ([kv, D, T], transposed as the tfjs cache holds them) and values
 * ([kv, T, D]) into the decoder's cache layout [position, kv, D]. Bindings: KT, V, KC, VC,
 * N (the prompt's length T, so one pipeline serves every prompt).
 */
export function cacheFillWgsl(numKvHeads: number, D: number): string {
  const KVD = numKvHeads * D;
  return `
@group(0) @binding(0) var<storage, read> KT: array<f32>;
@group(0) @binding(1) var<storage, read> V: array<f32>;
@group(0) @binding(2) var<storage, read_write> KC: array<f32>;
@group(0) @binding(3) var<storage, read_write> VC: array<f32>;
@group(0) @binding(4) var<storage, read> N: array<u32>;
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let T = N[0];
  let i = (wid.x + wid.y * nwg.x) * 256u + lid;
  if (i >= T * ${KVD}u) { return; }
  let t = i / ${KVD}u;
  let kh = (i % ${KVD}u) / ${D}u;
  let d = i % ${D}u;
  KC[i] = KT[(kh * ${D}u + d) * T + t];
  VC[i] = V[(kh * T + t) * ${D}u + d];
}
`;
}
