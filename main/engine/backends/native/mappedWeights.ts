import * as tf from '@tensorflow/tfjs-core';
import type { TensorEntry } from '../../formats/safetensors.js';
import type { NativeBackend } from './nativeBackend.js';
import { KIND, type Kind } from './ndAddon.js';

/** Storage kinds a weight file's tensor can be used in as it is on disk. */
function directKind(entry: TensorEntry): Kind | null {
  if (entry.dtype === 'BF16') return KIND.bf16;
  if (entry.dtype === 'F16') return KIND.f16;
  // A float32 tensor at an offset that is not a multiple of 4 would be read unaligned: copy it instead.
  if (entry.dtype === 'F32' && entry.start % 4 === 0) return KIND.f32;
  return null;
}

/**
 * A float32 tensor whose data is the weight file's bytes, memory-mapped (read-only, shared with
 * the OS page cache and with every other thread that maps the same file): BF16 and F16 weights
 * stay 16-bit. Null when the active backend is not the native one or the dtype cannot be used in
 * place (F64, a misaligned F32): the caller then reads and converts.
 */
export function mappedWeight(entry: TensorEntry): tf.Tensor | null {
  if (tf.getBackend() !== 'native') return null;
  const kind = directKind(entry);
  if (kind === null) return null;
  const backend = tf.backend() as NativeBackend;
  const count = entry.shape.reduce((a, b) => a * b, 1);
  const buf = backend.nd.mapTensor(entry.file, entry.start, count, kind);
  return tf.engine().makeTensorFromTensorInfo(backend.makeOutput(buf, [...entry.shape], 'float32', kind));
}
