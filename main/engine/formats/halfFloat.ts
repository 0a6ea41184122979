/**
 * IEEE half-precision (F16) and bfloat16 conversions for safetensors: F16 → F32 through a 64 K-entry
 * table (one lookup per element), F32 → F16 and F32 → BF16 with round-to-nearest-even.
 */

let halfTable: Float32Array | null = null;
/** F16 bits → F32 value, for every one of the 65,536 patterns (built once). */
export function halfToFloatTable(): Float32Array {
  if (halfTable) return halfTable;
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    if (exp === 0) t[h] = sign * frac * 2 ** -24;
    else if (exp === 31) t[h] = frac ? NaN : sign * Infinity;
    else t[h] = sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return (halfTable = t);
}

/** F32 → F16 bits; `scratch`/`bits` are a reusable Float32Array(1) and its Uint32Array view. */
export function floatToHalf(f: number, scratch: Float32Array, bits: Uint32Array): number {
  scratch[0] = f;
  const x = bits[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && half & 1)) half++;
    return sign | half;
  }
  let half = sign | (e << 10) | (mant >> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++; // round to nearest even; a carry rolls into the exponent
  return half;
}

/** F32 → BF16 bits, round to nearest even; NaN stays a NaN. */
export function floatToBf16(f: number, scratch: Float32Array, bits: Uint32Array): number {
  scratch[0] = f;
  const x = bits[0];
  return Number.isNaN(f) ? 0x7fc0 : (x + 0x7fff + ((x >>> 16) & 1)) >>> 16;
}
