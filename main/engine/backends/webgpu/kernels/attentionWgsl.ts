/*
 * Flash-style causal attention with grouped-query heads, a KV cache and left-padded rows, in one
 * pass: no score matrix is stored, only a 16×16 tile of it in workgroup memory.
 *
 * A workgroup takes 16 query rows of one KV head (the G query heads that share it, stacked along
 * time as in the composite: row = g·T + t) and walks the keys in blocks of 16, keeping per row a
 * running maximum m, normaliser l and output accumulator (online softmax):
 *   m' = max(m, max_j s_j);  l' = l·e^(m−m') + Σ_j e^(s_j−m');  o' = o·e^(m−m') + Σ_j e^(s_j−m')·v_j
 * Thread (row r, lane j) scores key j of the block, then accumulates output dims j, j+16, …
 * Masking matches the composite exactly: a key that is in the future, outside the sliding window,
 * or left padding gets −1e9 added to its score; key blocks that are masked for every row of the
 * workgroup are skipped (their terms are exactly 0 in float32). A left-padded prefill starts its
 * rows at negative positions (start = −pad): those queries are padding, see no key and write 0
 * (the composite gives them an average of every slot, which nothing reads).
 */

/** Largest head size the kernel handles (its tiles then fill 25 KiB of workgroup memory). */
export const ATTENTION_MAX_HEAD_DIM = 128;
export const ATTENTION_ROWS = 16;

export const ATTENTION_UNIFORMS = `struct U { B: u32, H: u32, KVH: u32, T: u32, S: u32, D: u32, G: u32, window: u32, scale: f32 };`;

/** Loads the block of 16 keys at s0 into Ks/Vs ([16][D] each), zero past the end. */
const LOAD_BLOCK = `
fn loadBlock(s0: u32, kBase: u32, vBase: u32, lid: u32) {
  for (var i = lid; i < 16u * u.D; i += 256u) {
    let dd = i / 16u;
    let j = i % 16u;
    var kv = 0.0;
    if (s0 + j < u.S) { kv = KT[kBase + dd * u.S + s0 + j]; }
    Ks[j * u.D + dd] = kv;
  }
  for (var i = lid; i < 16u * u.D; i += 256u) {
    let j = i / u.D;
    let dd = i % u.D;
    var vv = 0.0;
    if (s0 + j < u.S) { vv = V[vBase + (s0 + j) * u.D + dd]; }
    Vs[j * u.D + dd] = vv;
  }
}
`;

/** Whether slot s is visible to a query at position q of a row whose first `pad` slots are padding. */
const VISIBLE = `
fn visible(q: u32, s: u32, pad: u32) -> bool {
  if (s < pad) { return false; }
  let k = s - pad;
  return k <= q && (u.window == 0u || q - k < u.window);
}
`;

/** The slot range [lo, hi] any row of this workgroup can see, shared through workgroup memory. */
const SLOT_RANGE = `
fn slotRange(b: u32, row0: u32, lid: u32) -> vec2<u32> {
  if (lid == 0u) {
    let start = ROWS[b * 2u];
    let pad = u32(ROWS[b * 2u + 1u]);
    var qlo = 0xffffffffu;
    var qhi = 0u;
    for (var r = 0u; r < 16u; r++) {
      let row = row0 + r;
      // A query at a negative position is padding of a left-padded prefill: it sees nothing.
      let q = start + i32(row % u.T);
      if (row < u.G * u.T && q >= 0) { qlo = min(qlo, u32(q)); qhi = max(qhi, u32(q)); }
    }
    var lo = pad;
    if (u.window > 0u && qlo + 1u > u.window) { lo = pad + qlo + 1u - u.window; }
    rangeShared = vec2<u32>(lo, min(pad + qhi, u.S - 1u));
  }
  return workgroupUniformLoad(&rangeShared);
}
`;

export function attentionWgsl(): string {
  return `
${ATTENTION_UNIFORMS}
@group(0) @binding(0) var<storage, read> Q: array<f32>;
@group(0) @binding(1) var<storage, read> KT: array<f32>;
@group(0) @binding(2) var<storage, read> V: array<f32>;
@group(0) @binding(3) var<storage, read> ROWS: array<i32>;
@group(0) @binding(4) var<storage, read_write> O: array<f32>;
@group(0) @binding(5) var<uniform> u: U;
var<workgroup> Qs: array<f32, ${16 * ATTENTION_MAX_HEAD_DIM}>;
var<workgroup> Ks: array<f32, ${16 * ATTENTION_MAX_HEAD_DIM}>;
var<workgroup> Vs: array<f32, ${16 * ATTENTION_MAX_HEAD_DIM}>;
var<workgroup> Ss: array<f32, 256>;
var<workgroup> rangeShared: vec2<u32>;
${LOAD_BLOCK}
${VISIBLE}
${SLOT_RANGE}
${attentionMain()}
`;
}

/** One block's step of the online softmax for row r (rescale, then add the block's terms). */
const ONLINE_SOFTMAX_UPDATE = `
    var mb = m;
    for (var j = 0u; j < 16u; j++) { mb = max(mb, Ss[r * 16u + j]); }
    let corr = exp(m - mb);
    l = l * corr;
    for (var i = 0u; i < ${ATTENTION_MAX_HEAD_DIM / 16}u; i++) { acc[i] = acc[i] * corr; }
    for (var j = 0u; j < 16u; j++) {
      let p = exp(Ss[r * 16u + j] - mb);
      l += p;
      for (var i = 0u; i < ${ATTENTION_MAX_HEAD_DIM / 16}u; i++) {
        let d = lane + 16u * i;
        if (d < u.D) { acc[i] = fma(p, Vs[j * u.D + d], acc[i]); }
      }
    }
    m = mb;`;

function attentionMain(): string {
  return `
@compute @workgroup_size(16, 16, 1)
fn main(@builtin(local_invocation_id) l3: vec3<u32>, @builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let lane = l3.x;
  let r = l3.y;
  let b = wid.z;
  let kvh = wid.y;
  let row0 = wid.x * 16u;
  let row = row0 + r;
  let live = row < u.G * u.T;
  let g = row / u.T;
  let t = row % u.T;
  let h = kvh * u.G + g;
  let qi = ROWS[b * 2u] + i32(t);
  // Padding queries of a left-padded prefill sit at negative positions: they see no key, write 0.
  let real = qi >= 0;
  let q = u32(max(qi, 0));
  let pad = u32(ROWS[b * 2u + 1u]);
  for (var d = lane; d < u.D; d += 16u) {
    var qv = 0.0;
    if (live) { qv = Q[((b * u.H + h) * u.T + t) * u.D + d]; }
    Qs[r * u.D + d] = qv;
  }
  let range = slotRange(b, row0, lid);
  let kBase = (b * u.KVH + kvh) * u.D * u.S;
  let vBase = (b * u.KVH + kvh) * u.S * u.D;
  var m = -3.0e38;
  var l = 0.0;
  var acc: array<f32, ${ATTENTION_MAX_HEAD_DIM / 16}>;
  for (var s0 = (range.x / 16u) * 16u; s0 <= range.y; s0 += 16u) {
    loadBlock(s0, kBase, vBase, lid);
    workgroupBarrier();
    var sc = -3.0e38;
    let s = s0 + lane;
    if (live && s < u.S) {
      var dot = 0.0;
      for (var d = 0u; d < u.D; d++) { dot = fma(Qs[r * u.D + d], Ks[lane * u.D + d], dot); }
      sc = dot * u.scale + select(-1.0e9, 0.0, real && visible(q, s, pad));
    }
    Ss[r * 16u + lane] = sc;
    workgroupBarrier();
${ONLINE_SOFTMAX_UPDATE}    workgroupBarrier();
  }
  if (live) {
    for (var i = 0u; i < ${ATTENTION_MAX_HEAD_DIM / 16}u; i++) {
      let d = lane + 16u * i;
      if (d < u.D) { O[((b * u.T + t) * u.H + h) * u.D + d] = select(0.0, acc[i] / l, real && l > 0.0); }
    }
  }
}
`;
}
