import assert from 'node:assert/strict';

export interface Closeness {
  maxAbs: number;
  /** max |a − e| / max |e| */
  normRel: number;
  worst: number;
}

export function closeness(actual: ArrayLike<number>, expected: ArrayLike<number>): Closeness {
  assert.equal(actual.length, expected.length, `length ${actual.length} != expected ${expected.length}`);
  let maxAbs = 0;
  let worst = -1;
  let scale = 0;
  for (let i = 0; i < expected.length; i++) {
    const d = Math.abs(actual[i] - expected[i]);
    if (!(d <= maxAbs)) {
      maxAbs = d;
      worst = i;
    }
    scale = Math.max(scale, Math.abs(expected[i]));
  }
  return { maxAbs, normRel: scale > 0 ? maxAbs / scale : maxAbs, worst };
}

/** Every element within `atol` (absolute). */
export function assertAbsClose(actual: ArrayLike<number>, expected: ArrayLike<number>, atol: number, what: string): void {
  const c = closeness(actual, expected);
  assert.ok(
    c.maxAbs <= atol,
    `${what}: max abs error ${c.maxAbs.toExponential(2)} > ${atol} at index ${c.worst} (got ${actual[c.worst]}, expected ${expected[c.worst]})`,
  );
}

/** Max abs error relative to the largest expected magnitude within `rtol`. */
export function assertRelClose(actual: ArrayLike<number>, expected: ArrayLike<number>, rtol: number, what: string): void {
  const c = closeness(actual, expected);
  assert.ok(
    c.normRel <= rtol,
    `${what}: relative error ${c.normRel.toExponential(2)} > ${rtol} at index ${c.worst} (got ${actual[c.worst]}, expected ${expected[c.worst]})`,
  );
}
