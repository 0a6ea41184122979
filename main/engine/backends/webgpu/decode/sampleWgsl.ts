import { STEP_STRUCT } from './decodeWgsl.js';

/*
 * Choosing the next token on the GPU, so only its id and log-prob come back (8 bytes, not the
 * vocabulary's logits): greedy (the first of equal maxima, as the CPU's argmax), or temperature,
 * then top-k, then top-p, then a draw with the host's uniform number — the order and the
 * distribution of the CPU Sampler, without sorting: the k-th largest logit and the nucleus's
 * probability threshold are found by bisection over their float bit patterns (32 passes over the
 * logits each, one workgroup; ties at the nucleus threshold are all kept). The draw walks the kept
 * tokens in id order (the CPU walks them by probability: the same distribution, other tokens for
 * the same number).
 */

/** Bindings: L (logits [V]), S (step), R (result: id, then the log-prob's bits). */
export function sampleWgsl(V: number): string {
  return `
${STEP_STRUCT}
@group(0) @binding(0) var<storage, read> L: array<f32>;
@group(0) @binding(1) var<storage, read> S: Step;
@group(0) @binding(2) var<storage, read_write> R: array<u32>;
var<workgroup> rf: array<f32, 256>;
var<workgroup> ru: array<u32, 256>;
var<workgroup> pick: u32;
var<workgroup> rest: f32;
var<workgroup> chosenId: u32;
const V = ${V}u;
const CH = ${Math.ceil(V / 256)}u;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32) {
  // The maximum and its first index.
  var m = -3.4e38;
  var mi = 0xffffffffu;
  for (var i = lid; i < V; i += 256u) { if (L[i] > m) { m = L[i]; mi = i; } }
  rf[lid] = m;
  ru[lid] = mi;
  workgroupBarrier();
  for (var k = 128u; k > 0u; k >>= 1u) {
    if (lid < k) {
      let a = rf[lid + k];
      if (a > rf[lid] || (a == rf[lid] && ru[lid + k] < ru[lid])) { rf[lid] = a; ru[lid] = ru[lid + k]; }
    }
    workgroupBarrier();
  }
  let top = rf[0];
  let topId = ru[0];
  workgroupBarrier();
  let lse = top + log(sumF(lsum(top, lid), lid));
  var id = topId;
  if (S.temperature > 0.0) {
    let kKey = kthKey(lid);
    let total = sumF(mass(top, kKey, 0.0, lid), lid);
    var pfloor = 0.0;
    if (S.topP < 1.0) { pfloor = nucleusFloor(top, kKey, total * S.topP, lid); }
    id = draw(top, kKey, pfloor, S.draw * sumF(mass(top, kKey, pfloor, lid), lid), lid);
  }
  if (lid == 0u) {
    R[0] = id;
    R[1] = bitcast<u32>(L[id] - lse);
  }
}

${REDUCTIONS}
${FILTERS}
${DRAW}
`;
}

/** Workgroup sums, and the ordering key of a float. */
const REDUCTIONS = `
fn sumF(v: f32, lid: u32) -> f32 {
  rf[lid] = v;
  workgroupBarrier();
  for (var k = 128u; k > 0u; k >>= 1u) {
    if (lid < k) { rf[lid] += rf[lid + k]; }
    workgroupBarrier();
  }
  let r = rf[0];
  workgroupBarrier();
  return r;
}
fn sumU(v: u32, lid: u32) -> u32 {
  ru[lid] = v;
  workgroupBarrier();
  for (var k = 128u; k > 0u; k >>= 1u) {
    if (lid < k) { ru[lid] += ru[lid + k]; }
    workgroupBarrier();
  }
  let r = ru[0];
  workgroupBarrier();
  return r;
}
/** Float bits mapped so that unsigned order is float order. */
fn key(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}
`;

/** The normaliser, the kept tokens' probabilities, and the bisections for top-k and top-p. */
const FILTERS = `
fn lsum(top: f32, lid: u32) -> f32 {
  var s = 0.0;
  for (var i = lid; i < V; i += 256u) { s += exp(L[i] - top); }
  return s;
}
fn prob(i: u32, top: f32, kKey: u32, pfloor: f32) -> f32 {
  let p = exp((L[i] - top) / S.temperature);
  return select(0.0, p, key(L[i]) >= kKey && p >= pfloor);
}
fn mass(top: f32, kKey: u32, pfloor: f32, lid: u32) -> f32 {
  var s = 0.0;
  for (var i = lid; i < V; i += 256u) { s += prob(i, top, kKey, pfloor); }
  return s;
}
/** The key of the k-th largest logit (0: top-k off): the largest key with at least k logits at or above it. */
fn kthKey(lid: u32) -> u32 {
  if (S.topK == 0u || S.topK >= V) { return 0u; }
  var lo = 0u;
  var hi = 0xffffffffu;
  for (var it = 0u; it < 32u; it++) {
    let mid = lo + ((hi - lo) >> 1u) + ((hi - lo) & 1u);
    var c = 0u;
    for (var i = lid; i < V; i += 256u) { c += select(0u, 1u, key(L[i]) >= mid); }
    if (sumU(c, lid) >= S.topK) { lo = mid; } else { hi = mid - 1u; }
  }
  return lo;
}
/** The largest probability p with mass(p' >= p) >= goal: the nucleus is every token at or above it. */
fn nucleusFloor(top: f32, kKey: u32, goal: f32, lid: u32) -> f32 {
  var lo = 0u;
  var hi = 0x3f800000u;
  for (var it = 0u; it < 31u; it++) {
    let mid = lo + ((hi - lo) >> 1u) + ((hi - lo) & 1u);
    if (sumF(mass(top, kKey, bitcast<f32>(mid), lid), lid) >= goal) { lo = mid; } else { hi = mid - 1u; }
  }
  return bitcast<f32>(lo);
}
`;

/** The draw: the chunk of 256 that holds it, then the token within the chunk. */
const DRAW = `
/** The kept token where the running mass (in id order) passes r. */
fn draw(top: f32, kKey: u32, pfloor: f32, r: f32, lid: u32) -> u32 {
  let begin = lid * CH;
  let end = min(begin + CH, V);
  var s = 0.0;
  for (var i = begin; i < end; i++) { s += prob(i, top, kKey, pfloor); }
  rf[lid] = s;
  workgroupBarrier();
  if (lid == 0u) {
    var acc = 0.0;
    var j = 0u;
    var last = 0u;
    for (; j < 256u; j++) {
      if (rf[j] > 0.0) { last = j; }
      if (acc + rf[j] > r) { break; }
      acc += rf[j];
    }
    // Rounding can leave r at the very end: the last chunk with any mass takes it.
    if (j == 256u) { j = last; acc -= rf[last]; }
    pick = j;
    rest = r - acc;
  }
  workgroupBarrier();
  let chosen = pick;
  if (lid == chosen) {
    var left = rest;
    var lastKept = begin;
    var found = 0xffffffffu;
    for (var i = begin; i < end; i++) {
      let p = prob(i, top, kKey, pfloor);
      if (p > 0.0) {
        lastKept = i;
        if (left < p) { found = i; break; }
        left -= p;
      }
    }
    chosenId = select(found, lastKept, found == 0xffffffffu);
  }
  return workgroupUniformLoad(&chosenId);
}
`;
