import * as tf from '@tensorflow/tfjs-core';
import { BINARY, UNARY } from '../ndAddon.js';
import { backendUtil, kindOf, nativeKernel, size, words } from './kernelUtil.js';

/** Element-wise kernels: maps, broadcasting binary ops, comparisons and logic, select, cast, clip, AddN. */

function unary(name: keyof typeof UNARY, outDtype?: tf.DataType): tf.KernelConfig {
  return nativeKernel(name, (backend, { x }) => {
    const dtype = outDtype ?? x.dtype;
    const buf = backend.nd.unary(UNARY[name], words(backend, x));
    return backend.makeOutput(buf, [...x.shape], dtype);
  });
}

const BOOL_OUT = new Set(['Equal', 'NotEqual', 'Greater', 'GreaterEqual', 'Less', 'LessEqual', 'LogicalAnd', 'LogicalOr']);

function binary(name: keyof typeof BINARY): tf.KernelConfig {
  return nativeKernel(name, (backend, { a, b }) => {
    const shape = backendUtil.assertAndGetBroadcastShape(a.shape, b.shape);
    // tfjs ops give both operands one dtype; bool and int32 share a storage kind.
    if (kindOf(a.dtype) !== kindOf(b.dtype)) throw new Error(`native ${name}: operands are ${a.dtype} and ${b.dtype}`);
    const op = name === 'RealDiv' && a.dtype !== 'float32' ? BINARY.FloorDiv : BINARY[name];
    const buf = backend.nd.binary(op, words(backend, a), [...a.shape], words(backend, b), [...b.shape], shape);
    const dtype = BOOL_OUT.has(name) ? 'bool' : op === BINARY.FloorDiv ? 'int32' : a.dtype;
    return backend.makeOutput(buf, shape, dtype);
  });
}

export const ELEMENTWISE_KERNELS: tf.KernelConfig[] = [
  ...(['Abs', 'Neg', 'Exp', 'Log', 'Sqrt', 'Rsqrt', 'Square', 'Sigmoid', 'Sign', 'Floor', 'Ceil', 'Round', 'Tanh', 'Softplus'] as const).map(
    (n) => unary(n),
  ),
  unary('Relu'),
  unary('Log1p'),
  unary('Reciprocal'),
  unary('LogicalNot', 'bool'),
  ...(Object.keys(BINARY) as Array<keyof typeof BINARY>).map((n) => binary(n)),
  nativeKernel('Select', (backend, { condition, t, e }) => {
    const buf = backend.nd.select(words(backend, condition), words(backend, t), words(backend, e));
    return backend.makeOutput(buf, [...t.shape], t.dtype);
  }),
  nativeKernel('Cast', (backend, { x }, attrs) => {
    const dtype = attrs.dtype as tf.DataType;
    if (dtype === 'string' || dtype === 'complex64') throw new Error(`native Cast: no ${dtype} tensors`);
    const buf = backend.nd.cast(words(backend, x), kindOf(dtype), dtype === 'bool');
    return backend.makeOutput(buf, [...x.shape], dtype);
  }),
  nativeKernel('ClipByValue', (backend, { x }, attrs) => {
    const buf = backend.nd.clip(words(backend, x), attrs.clipValueMin as number, attrs.clipValueMax as number);
    return backend.makeOutput(buf, [...x.shape], 'float32');
  }),
  nativeKernel('AddN', (backend, inputs) => {
    const list = Object.values(inputs) as tf.TensorInfo[];
    const buf = backend.nd.addN(list.map((t) => words(backend, t)));
    return backend.makeOutput(buf, [...list[0].shape], list[0].dtype);
  }),
  nativeKernel('ZerosLike', (backend, { x }) =>
    backend.makeOutput(backend.nd.fill(kindOf(x.dtype), size(x.shape), 0), [...x.shape], x.dtype),
  ),
  nativeKernel('OnesLike', (backend, { x }) => {
    const bits = x.dtype === 'float32' ? 0x3f800000 : 1;
    return backend.makeOutput(backend.nd.fill(kindOf(x.dtype), size(x.shape), bits), [...x.shape], x.dtype);
  }),
];


