import type { BroadcastMode } from './nativeAddon.js';
import { size } from './wasmHeap.js';

/**
 * How two shapes broadcast, as one of the addon's patterns over [rows, cols]; null for any other
 * pattern (tfjs's kernel handles those).
 */
export function broadcastPlan(
  a: readonly number[],
  b: readonly number[],
): { mode: BroadcastMode; rows: number; cols: number; shape: number[] } | null {
  const rank = Math.max(a.length, b.length);
  const pa = [...new Array<number>(rank - a.length).fill(1), ...a];
  const pb = [...new Array<number>(rank - b.length).fill(1), ...b];
  const shape: number[] = [];
  for (let i = 0; i < rank; i++) {
    if (pa[i] !== pb[i] && pa[i] !== 1 && pb[i] !== 1) return null;
    shape.push(Math.max(pa[i], pb[i]));
  }
  const n = size(shape);
  const sa = size(pa);
  const sb = size(pb);
  if (n === 0) return null;
  if (sa === n && sb === n) return { mode: 0, rows: 1, cols: n, shape };
  // One side is full size; the other a scalar, a trailing block (row) or a leading block (column).
  const small = (p: number[], full: 'a' | 'b'): { mode: BroadcastMode; rows: number; cols: number } | null => {
    const s = size(p);
    if (s === 1) return { mode: full === 'a' ? 1 : 2, rows: 1, cols: n };
    const first = p.findIndex((d) => d !== 1);
    let last = p.length - 1;
    while (p[last] === 1) last--;
    const eq = (from: number, to: number) => p.slice(from, to).every((d, i) => d === shape[from + i]);
    if (eq(first, rank)) return { mode: full === 'a' ? 3 : 4, rows: n / s, cols: s };
    if (eq(0, last + 1)) return { mode: full === 'a' ? 5 : 6, rows: s, cols: n / s };
    return null;
  };
  const plan = sa === n ? small(pb, 'a') : sb === n ? small(pa, 'b') : null;
  return plan ? { ...plan, shape } : null;
}
