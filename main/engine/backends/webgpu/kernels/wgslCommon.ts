/*
 * WGSL shared by ClawLoop's kernels: workgroup-wide reductions and the 2-D grid that lifts the
 * 65 535-workgroup limit of one dispatch dimension.
 */

/** Threads per workgroup of the row kernels (one workgroup per row). */
export const ROW_THREADS = 256;

/**
 * Sum and max over the 256 threads of a workgroup, through workgroup memory (a tree: log₂ 256
 * steps). Every thread must call them (they contain barriers) and gets the result.
 */
export const WORKGROUP_REDUCE = `
var<workgroup> red: array<f32, ${ROW_THREADS}>;
fn wgSum(v: f32, lid: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = ${ROW_THREADS / 2}u; s > 0u; s >>= 1u) {
    if (lid < s) { red[lid] += red[lid + s]; }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}
fn wgMax(v: f32, lid: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = ${ROW_THREADS / 2}u; s > 0u; s >>= 1u) {
    if (lid < s) { red[lid] = max(red[lid], red[lid + s]); }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}
`;

/** Workgroups for `n` independent items, spread over x and y when x alone would pass the limit. */
export function grid(n: number, maxPerDim: number): [number, number, number] {
  if (n <= maxPerDim) return [Math.max(n, 1), 1, 1];
  const y = Math.ceil(n / maxPerDim);
  return [Math.ceil(n / y), y, 1];
}

/** The item index of a workgroup in a {@link grid} (uses the builtin `wid` and `nwg`). */
export const GRID_INDEX = 'wid.x + wid.y * nwg.x';

/** A little-endian uniform block from u32, i32 and f32 fields, in declaration order (4 bytes each). */
export function uniformBlock(fields: Array<['u32' | 'i32' | 'f32', number]>): ArrayBuffer {
  const buf = new ArrayBuffer(Math.max(16, Math.ceil((fields.length * 4) / 16) * 16));
  const view = new DataView(buf);
  fields.forEach(([type, v], i) => {
    if (type === 'f32') view.setFloat32(i * 4, v, true);
    else if (type === 'i32') view.setInt32(i * 4, v, true);
    else view.setUint32(i * 4, v, true);
  });
  return buf;
}
