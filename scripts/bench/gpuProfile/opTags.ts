import * as tf from '@tensorflow/tfjs-core';
import { FUSED } from '../../../main/engine/ops/fusedKernels.js';
import { matmulShape } from '../../../main/engine/backends/webgpu/kernels/matmulKernel.js';
import type { OpTag } from './gpuRecorder.js';

/** Bytes per element as the GPU stores a tensor (bool and int32 are 32-bit words there). */
const bytesOf = (t: tf.TensorInfo) => tf.util.sizeFromShape(t.shape) * (t.dtype === 'complex64' ? 8 : 4);

/**
 * Floating-point operations of causal attention: q [B, H, T, D] against S keys, the last T of them
 * the queries' own (query p sees S − T + p + 1 keys); Q·Kᵀ and P·V, two each per multiply-add.
 */
export function attentionFlops(B: number, H: number, T: number, S: number, D: number): number {
  const pairs = T * (S - T) + (T * (T + 1)) / 2;
  return 4 * B * H * D * pairs;
}

function shapes(inputs: tf.NamedTensorInfoMap): string {
  return Object.values(inputs)
    .filter((t): t is tf.TensorInfo => !!t && Array.isArray((t as tf.TensorInfo).shape))
    .map((t) => `[${t.shape}]`)
    .join(',');
}

function flopsOf(kernel: string, inputs: tf.NamedTensorInfoMap, attrs: tf.NamedAttrMap): { flops: number; name: string } {
  if (kernel === tf.BatchMatMul) {
    const { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
    const { transposeA, transposeB } = attrs as { transposeA: boolean; transposeB: boolean };
    const s = matmulShape(a.shape, b.shape, transposeA, transposeB);
    const name = `${kernel} [${a.shape}]${transposeA ? 'ᵀ' : ''}·[${b.shape}]${transposeB ? 'ᵀ' : ''}`;
    return { flops: s ? 2 * s.batch * s.M * s.N * s.K : 0, name };
  }
  if (kernel === FUSED.matmulW16) {
    const { x, w } = inputs as { x: tf.TensorInfo; w: tf.TensorInfo };
    const { cols, transposeB, format } = attrs as { cols: number; transposeB: boolean; format: string };
    const K = x.shape[x.shape.length - 1];
    const M = tf.util.sizeFromShape(x.shape) / K;
    const N = transposeB ? w.shape[0] : cols;
    return { flops: 2 * M * N * K, name: `${kernel} [${x.shape}]·${format}[${w.shape[0]},${cols}]${transposeB ? 'ᵀ' : ''}` };
  }
  if (kernel === FUSED.attention) {
    const { q, kT } = inputs as { q: tf.TensorInfo; kT: tf.TensorInfo };
    const [B, H, T, D] = q.shape;
    const S = kT.shape[3];
    return { flops: attentionFlops(B, H, T, S, D), name: `${kernel} q[${q.shape}] keys ${S}` };
  }
  return { flops: 0, name: `${kernel} ${shapes(inputs)}` };
}

/**
 * The tag of one tfjs op call: its name and shapes, its flops (products and attention) and the
 * bytes it reads; `vocab` marks the ops of the embedding, LM head and loss.
 */
export function describeOp(vocab: number) {
  return (kernel: string, args: { inputs: tf.NamedTensorInfoMap; attrs?: tf.NamedAttrMap }): OpTag => {
    const { flops, name } = flopsOf(kernel, args.inputs, args.attrs ?? {});
    const tensors = Object.values(args.inputs).filter((t): t is tf.TensorInfo => !!t && Array.isArray((t as tf.TensorInfo).shape));
    const bytes = tensors.reduce((s, t) => s + bytesOf(t), 0);
    const head = tensors.some((t) => t.shape.includes(vocab));
    return { name, flops, bytes, head };
  };
}
