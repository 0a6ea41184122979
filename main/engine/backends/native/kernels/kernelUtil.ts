import * as tf from '@tensorflow/tfjs-core';
import type { NativeBackend } from '../nativeBackend.js';
import { KIND, type Buf } from '../ndAddon.js';

/** A kernel of the native backend: inputs and attributes as tfjs passes them. */
export type NativeKernel = (
  backend: NativeBackend,
  inputs: Record<string, tf.TensorInfo> & tf.TensorInfo[],
  attrs: Record<string, unknown>,
) => tf.TensorInfo | tf.TensorInfo[];

/** Temporary buffers (16-bit inputs widened for one kernel call), freed when the kernel returns. */
const temps: Buf[] = [];

/** A kernel config for the 'native' backend; temporaries made by `f32` are freed after each call. */
export function nativeKernel(kernelName: string, fn: NativeKernel): tf.KernelConfig {
  return {
    kernelName,
    backendName: 'native',
    kernelFunc: ({ inputs, attrs, backend }) => {
      try {
        return fn(backend as NativeBackend, inputs as Record<string, tf.TensorInfo> & tf.TensorInfo[], attrs as Record<string, unknown>);
      } finally {
        const b = backend as NativeBackend;
        for (const t of temps.splice(0)) b.nd.bufFree(t);
      }
    },
  };
}

/**
 * A tensor's buffer as 4-byte words (float32, int32 or bool): a 16-bit weight is widened into a
 * temporary for this call. Only matmul's B operand and gather read 16-bit storage directly.
 */
export function words(backend: NativeBackend, t: tf.TensorInfo): Buf {
  const d = backend.data.get(t.dataId);
  if (d.kind !== KIND.bf16 && d.kind !== KIND.f16) return d.buf;
  const wide = backend.nd.bufWiden(d.buf);
  temps.push(wide);
  return wide;
}

/** Registers a buffer a kernel made for its own use, to be freed when the kernel returns. */
export function temp(buf: Buf): Buf {
  temps.push(buf);
  return buf;
}

/** A tensor's buffer as stored (possibly 16-bit). */
export function stored(backend: NativeBackend, t: tf.TensorInfo): Buf {
  return backend.data.get(t.dataId).buf;
}

export const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** Row-major element strides of a shape. */
export function stridesOf(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    s[d] = acc;
    acc *= shape[d];
  }
  return s;
}

/** The 32 bits of a value of `dtype` (float32 bit pattern, or the integer), for fill and pad. */
export function valueBits(value: number, dtype: tf.DataType): number {
  if (dtype === 'float32') return new Uint32Array(Float32Array.of(value).buffer)[0];
  return dtype === 'bool' ? (value ? 1 : 0) : value | 0;
}

/** A possibly negative axis as an index in [0, rank). */
export const normAxis = (axis: number, rank: number) => (axis < 0 ? axis + rank : axis);

/** The storage kind of new tensors of a dtype. */
export const kindOf = (dtype: tf.DataType) => (dtype === 'float32' ? KIND.f32 : KIND.i32);

/** A copy of x (of any dtype) as a new contiguous tensor: used where a kernel must not alias. */
export function copyOf(backend: NativeBackend, x: tf.TensorInfo): tf.TensorInfo {
  const buf = backend.nd.strided(words(backend, x), [size(x.shape)], [1], 0);
  return backend.makeOutput(buf, [...x.shape], x.dtype);
}

/** Reads the scalar shape helpers tfjs exports for backends. */
export const { backend_util: backendUtil, util } = tf;
