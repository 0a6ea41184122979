import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares two secrets in constant time (hashes first, so lengths do not leak). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
