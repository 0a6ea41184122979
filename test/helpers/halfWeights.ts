/** Random 16-bit weights for the native 16-bit kernels' tests, and their exact float32 values. */
import { floatToBf16, floatToHalf, halfToFloatTable } from '../../main/engine/formats/halfFloat.js';
import type { Rng } from '../../main/util/random.js';

/** `count` weights of standard deviation 0.05 as `dtype` bits, and each one widened exactly. */
export function randomHalfWeights(dtype: 'bf16' | 'f16', count: number, rng: Rng): { bits: Uint16Array; wide: Float32Array } {
  const scratch = new Float32Array(1);
  const view = new Uint32Array(scratch.buffer);
  const bits = Uint16Array.from({ length: count }, () => {
    const v = rng.normal() * 0.05;
    return dtype === 'bf16' ? floatToBf16(v, scratch, view) : floatToHalf(v, scratch, view);
  });
  const table = halfToFloatTable();
  const wide = dtype === 'f16' ? Float32Array.from(bits, (h) => table[h]) : new Float32Array(Uint32Array.from(bits, (h) => h << 16).buffer);
  return { bits, wide };
}
