import type * as tf from '@tensorflow/tfjs-core';
import type { TakeProjection, TakeVariable } from './decoderBlock.js';
import type { WeightLayout } from './layers/linear.js';
import { PackedWeight } from './packedWeight.js';
import { transpose2d, variableFrom, variableOf } from './tensorUtil.js';
import type { StorageOf } from './weightStorage.js';

/** Where a model's weights come from, by Hugging Face name and in Hugging Face layout. */
export interface WeightSource {
  /** The tensor as it is stored (a memory-mapped file on the native backend), or null to use float32(). */
  direct?(name: string): tf.Tensor | null;
  float32(name: string): Float32Array;
  /** Which projections to pack 16-bit for the GPU (see WeightStorage). Default: none. */
  storage16?: StorageOf;
}

/**
 * How a model takes its weights from `source`: variables (projections held in `layout`; a stored
 * tensor used as it is where the layout is the file's), and projection weights, packed 16-bit
 * where `source.storage16` says so.
 */
export function weightTakers(source: WeightSource, layout: WeightLayout): { v: TakeVariable; proj: TakeProjection } {
  const v: TakeVariable = (name, shape, projection = false) => {
    if (!projection || layout === 'outIn') {
      const direct = source.direct?.(name);
      if (direct) return variableOf(direct);
    }
    const data = source.float32(name);
    if (projection && layout === 'inOut') {
      const [out, inp] = shape;
      return variableFrom(transpose2d(data, out, inp), [inp, out], false);
    }
    return variableFrom(data, shape, false);
  };
  const proj: TakeProjection = (name, shape) => {
    const format = source.storage16?.(name);
    if (!format) return v(name, shape, true);
    const [out, inp] = shape;
    const data = source.float32(name);
    // Packed in the model's layout: [in, out] (the GPU's), or [out, in] as stored.
    return layout === 'inOut' ? PackedWeight.pack(transpose2d(data, out, inp), inp, out, format) : PackedWeight.pack(data, out, inp, format);
  };
  return { v, proj };
}
