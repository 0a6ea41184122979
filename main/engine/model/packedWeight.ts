import * as tf from '@tensorflow/tfjs-core';
import { floatToBf16, floatToHalf, halfToFloatTable } from '../formats/halfFloat.js';
import { FUSED, fusable, runFused } from '../ops/fusedKernels.js';

/** A weight's storage: float32, or 16-bit (IEEE half or bfloat16) packed for the GPU. */
export type WeightFormat = 'f16' | 'bf16';

/**
 * A frozen weight matrix [rows, cols] held in 16 bits per value on the GPU: two values per int32
 * word along each row (the even column in the low half), half the memory of float32. Products
 * with it unpack to float32 inside the matmul kernel (ClawMatMulW16) and compute in float32, so a
 * checkpoint stored in BF16 or F16 is used exactly as stored.
 */
export class PackedWeight {
  private constructor(
    /** int32 [rows, ceil(cols / 2)]. */
    readonly words: tf.Tensor2D,
    readonly rows: number,
    readonly cols: number,
    readonly format: WeightFormat,
  ) {}

  /** Rounds (to nearest even) and packs a row-major float32 matrix. */
  static pack(data: Float32Array, rows: number, cols: number, format: WeightFormat): PackedWeight {
    const wordsPerRow = Math.ceil(cols / 2);
    const out = new Uint32Array(rows * wordsPerRow);
    const scratch = new Float32Array(1);
    const bits = new Uint32Array(scratch.buffer);
    const to16 = format === 'f16' ? floatToHalf : floatToBf16;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c += 2) {
        const lo = to16(data[r * cols + c], scratch, bits);
        const hi = c + 1 < cols ? to16(data[r * cols + c + 1], scratch, bits) : 0;
        out[r * wordsPerRow + c / 2] = (lo | (hi << 16)) >>> 0;
      }
    }
    return new PackedWeight(tf.tensor2d(new Int32Array(out.buffer), [rows, wordsPerRow], 'int32'), rows, cols, format);
  }

  /** Whether the active backend multiplies by packed weights (the GPU backend does). */
  static supported(): boolean {
    return fusable(FUSED.matmulW16);
  }

  get shape(): [number, number] {
    return [this.rows, this.cols];
  }

  /** x [..., rows] · W → [..., cols]; with `transposed`, x [..., cols] · Wᵀ → [..., rows]. Differentiable in x. */
  matmul(x: tf.Tensor, transposed = false): tf.Tensor {
    return runFused(FUSED.matmulW16, { x, w: this.words }, { cols: this.cols, format: this.format, transposeB: transposed });
  }

  /** The values as float32, row-major [rows, cols] (to export or save). */
  async toFloat32(): Promise<Float32Array> {
    const words = new Uint32Array(((await this.words.data()) as Int32Array).buffer);
    const wordsPerRow = Math.ceil(this.cols / 2);
    const out = new Float32Array(this.rows * this.cols);
    const view = new Uint32Array(out.buffer);
    const table = halfToFloatTable();
    for (let r = 0; r < this.rows; r++) {
      for (let c = 0; c < this.cols; c++) {
        const w = words[r * wordsPerRow + (c >> 1)];
        const h = c & 1 ? w >>> 16 : w & 0xffff;
        if (this.format === 'bf16') view[r * this.cols + c] = h << 16;
        else out[r * this.cols + c] = table[h];
      }
    }
    return out;
  }

  dispose(): void {
    this.words.dispose();
  }
}
