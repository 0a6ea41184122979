import * as tf from '@tensorflow/tfjs-core';
import { transposesAreFree } from '../backends/capabilities.js';

/**
 * Gradients for the tfjs kernels ClawLoop differentiates through.
 *
 * tfjs-core's Node build ships no gradients (the `@tensorflow/tfjs` umbrella bundles them, along
 * with layers, converter and WebGL we do not need), so the engine registers its own: one small
 * function per kernel. They are checked against PyTorch's gradients of whole models (train tests)
 * and against finite differences per kernel (gradients tests).
 */

type Saved = tf.Tensor[];
type Attrs = Record<string, unknown>;
type GradFn = (dy: tf.Tensor | tf.Tensor[], saved: Saved, attrs: Attrs) => Record<string, () => tf.Tensor>;

/** Sums a broadcast gradient back to an input's shape. */
function sumTo(dy: tf.Tensor, shape: number[]): tf.Tensor {
  const axes = tf.broadcast_util.getReductionAxes(shape, dy.shape);
  return tf.reshape(axes.length ? tf.sum(dy, axes) : dy, shape);
}

function axesOf(axis: unknown, rank: number): number[] {
  const list = axis === undefined || axis === null ? [...Array(rank).keys()] : Array.isArray(axis) ? axis : [axis as number];
  return list.map((a: number) => (a < 0 ? a + rank : a));
}

/** dy of a reduction, broadcast back over the reduced axes. */
function unreduce(dy: tf.Tensor, xShape: number[], axis: unknown): tf.Tensor {
  const kept = [...xShape];
  for (const a of axesOf(axis, xShape.length)) kept[a] = 1;
  return tf.broadcastTo(tf.reshape(dy, kept), xShape);
}

/** float32 view of a tensor; a no-op (no copy) when it already is one. */
const f32 = (t: tf.Tensor) => (t.dtype === 'float32' ? t : tf.cast(t, 'float32'));

function transposeLast2(x: tf.Tensor): tf.Tensor {
  const r = x.rank;
  const perm = [...Array(r).keys()];
  [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
  return tf.transpose(x, perm);
}

const binary = (
  da: (dy: tf.Tensor, a: tf.Tensor, b: tf.Tensor) => tf.Tensor,
  db: (dy: tf.Tensor, a: tf.Tensor, b: tf.Tensor) => tf.Tensor,
): { inputsToSave: string[]; gradFunc: GradFn } => ({
  inputsToSave: ['a', 'b'],
  gradFunc: (dy, [a, b]) => ({
    a: () => sumTo(da(dy as tf.Tensor, a, b), a.shape),
    b: () => sumTo(db(dy as tf.Tensor, a, b), b.shape),
  }),
});

const unary = (dx: (dy: tf.Tensor, x: tf.Tensor) => tf.Tensor): { inputsToSave: string[]; gradFunc: GradFn } => ({
  inputsToSave: ['x'],
  gradFunc: (dy, [x]) => ({ x: () => dx(dy as tf.Tensor, x) }),
});

const ofOutput = (dx: (dy: tf.Tensor, y: tf.Tensor) => tf.Tensor): { outputsToSave: boolean[]; gradFunc: GradFn } => ({
  outputsToSave: [true],
  gradFunc: (dy, [y]) => ({ x: () => dx(dy as tf.Tensor, y) }),
});

const GRADIENTS: Record<string, { inputsToSave?: string[]; outputsToSave?: boolean[]; saveAllInputs?: boolean; gradFunc: GradFn }> = {
  [tf.Add]: binary(
    (dy) => dy,
    (dy) => dy,
  ),
  [tf.Sub]: binary(
    (dy) => dy,
    (dy) => tf.neg(dy),
  ),
  [tf.Multiply]: binary(
    (dy, _a, b) => tf.mul(dy, f32(b)),
    (dy, a) => tf.mul(dy, f32(a)),
  ),
  [tf.RealDiv]: binary(
    (dy, _a, b) => tf.div(dy, b),
    (dy, a, b) => tf.neg(tf.div(tf.mul(dy, a), tf.square(b))),
  ),
  [tf.Maximum]: binary(
    (dy, a, b) => tf.mul(dy, f32(tf.greaterEqual(a, b))),
    (dy, a, b) => tf.mul(dy, f32(tf.less(a, b))),
  ),
  [tf.Minimum]: binary(
    (dy, a, b) => tf.mul(dy, f32(tf.lessEqual(a, b))),
    (dy, a, b) => tf.mul(dy, f32(tf.greater(a, b))),
  ),
  [tf.AddN]: {
    saveAllInputs: true,
    gradFunc: (dy, saved) => Object.fromEntries(saved.map((_, i) => [String(i), () => tf.clone(dy as tf.Tensor)])),
  },
  [tf.Neg]: unary((dy) => tf.neg(dy)),
  [tf.Identity]: unary((dy) => dy),
  [tf.Cast]: unary((dy) => dy),
  [tf.Square]: unary((dy, x) => tf.mul(dy, tf.mul(x, 2))),
  [tf.Sqrt]: unary((dy, x) => tf.div(dy, tf.mul(tf.sqrt(x), 2))),
  // d/dx x^(−1/2) = −½ x^(−3/2) = −½ rsqrt(x) / x
  [tf.Rsqrt]: unary((dy, x) => tf.mul(dy, tf.mul(tf.div(tf.rsqrt(x), x), -0.5))),
  [tf.Log]: unary((dy, x) => tf.div(dy, x)),
  [tf.Abs]: unary((dy, x) => tf.mul(dy, tf.sign(x))),
  [tf.Exp]: ofOutput((dy, y) => tf.mul(dy, y)),
  [tf.Sigmoid]: ofOutput((dy, y) => tf.mul(dy, tf.mul(y, tf.sub(1, y)))),
  [tf.Tanh]: ofOutput((dy, y) => tf.mul(dy, tf.sub(1, tf.square(y)))),
  [tf.Softplus]: unary((dy, x) => tf.mul(dy, tf.sigmoid(x))),
  [tf.Reshape]: unary((dy, x) => tf.reshape(dy, x.shape)),
  [tf.Mean]: {
    inputsToSave: ['x'],
    gradFunc: (dy, [x], attrs) => ({
      x: () => {
        const n = axesOf(attrs.axis, x.rank).reduce((p, a) => p * x.shape[a], 1);
        return tf.div(unreduce(dy as tf.Tensor, x.shape, attrs.axis), n);
      },
    }),
  },
  [tf.Sum]: {
    inputsToSave: ['x'],
    gradFunc: (dy, [x], attrs) => ({ x: () => unreduce(dy as tf.Tensor, x.shape, attrs.axis) }),
  },
  [tf.Max]: {
    inputsToSave: ['x'],
    outputsToSave: [true],
    gradFunc: (dy, [x, y], attrs) => ({
      x: () => {
        const at = f32(tf.equal(x, unreduce(y, x.shape, attrs.reductionIndices)));
        return tf.mul(unreduce(dy as tf.Tensor, x.shape, attrs.reductionIndices), at);
      },
    }),
  },
  [tf.Transpose]: {
    gradFunc: (dy, _saved, attrs) => {
      const perm = attrs.perm as number[];
      const undo = new Array<number>(perm.length);
      perm.forEach((p, i) => (undo[p] = i));
      return { x: () => tf.transpose(dy as tf.Tensor, undo) };
    },
  },
  [tf.GatherV2]: {
    inputsToSave: ['x', 'indices'],
    gradFunc: (dy, [x, indices], attrs) => ({
      x: () => {
        if ((attrs.axis as number) !== 0 || ((attrs.batchDims as number) ?? 0) !== 0) {
          throw new Error(
            `gather gradient: only axis 0 without batch dims is supported (got axis ${attrs.axis}, batchDims ${attrs.batchDims})`,
          );
        }
        // Scatter-add the rows back (ScatterNd sums duplicate indices; wasm has no UnsortedSegmentSum).
        const rows = tf.reshape(dy as tf.Tensor, [indices.size, ...x.shape.slice(1)]);
        return tf.scatterND(tf.reshape(indices, [indices.size, 1]), rows, x.shape);
      },
      indices: () => f32(tf.zerosLike(indices)),
    }),
  },
  [tf.ScatterNd]: {
    inputsToSave: ['indices'],
    gradFunc: (dy, [indices]) => ({
      indices: () => f32(tf.zerosLike(indices)),
      updates: () => tf.gatherND(dy as tf.Tensor, indices),
    }),
  },
  [tf.Concat]: {
    saveAllInputs: true,
    gradFunc: (dy, saved, attrs) => {
      const axis = axesOf(attrs.axis, saved[0].rank)[0];
      const parts = tf.split(
        dy as tf.Tensor,
        saved.map((t) => t.shape[axis]),
        axis,
      );
      return Object.fromEntries(parts.map((p, i) => [String(i), () => p]));
    },
  },
  [tf.SplitV]: {
    inputsToSave: ['x'],
    gradFunc: (dys, [x], attrs) => {
      const axis = axesOf(attrs.axis, x.rank)[0];
      const spec = attrs.numOrSizeSplits as number | number[];
      const sizes = Array.isArray(spec) ? spec : new Array<number>(spec).fill(x.shape[axis] / spec);
      return {
        x: () =>
          tf.concat(
            (dys as Array<tf.Tensor | null>).map((d, i) => {
              if (d) return d;
              const shape = [...x.shape];
              shape[axis] = sizes[i];
              return tf.zeros(shape);
            }),
            axis,
          ),
      };
    },
  },
  [tf.Tile]: {
    inputsToSave: ['x'],
    gradFunc: (dy, [x], attrs) => ({
      x: () => {
        // out[r·s + j] = x[j] along each axis: view dy as [r0, s0, r1, s1, …] and sum the r axes.
        const reps = attrs.reps as number[];
        const split = reps.flatMap((r, i) => [r, x.shape[i]]);
        return tf.sum(
          tf.reshape(dy as tf.Tensor, split),
          reps.map((_, i) => 2 * i),
        );
      },
    }),
  },
  [tf.Slice]: {
    inputsToSave: ['x'],
    gradFunc: (dy, [x], attrs) => ({
      x: () => {
        const begin = attrs.begin as number[];
        const d = dy as tf.Tensor;
        const pads = x.shape.map((n, i) => [begin[i], n - begin[i] - d.shape[i]] as [number, number]);
        return tf.pad(d, pads);
      },
    }),
  },
  [tf.Softmax]: {
    outputsToSave: [true],
    gradFunc: (dy, [y], attrs) => ({
      logits: () => {
        const dim = (attrs.dim as number) ?? -1;
        const d = dy as tf.Tensor;
        return tf.mul(y, tf.sub(d, tf.sum(tf.mul(d, y), dim, true)));
      },
    }),
  },
  [tf.ClipByValue]: {
    inputsToSave: ['x'],
    gradFunc: (dy, [x], attrs) => ({
      x: () => {
        const inside = tf.logicalAnd(tf.greaterEqual(x, attrs.clipValueMin as number), tf.lessEqual(x, attrs.clipValueMax as number));
        return tf.mul(dy as tf.Tensor, f32(inside));
      },
    }),
  },
  [tf.Select]: {
    inputsToSave: ['condition'],
    gradFunc: (dy, [condition]) => ({
      condition: () => f32(tf.zerosLike(condition)),
      t: () => tf.mul(dy as tf.Tensor, f32(condition)),
      e: () => tf.mul(dy as tf.Tensor, f32(tf.logicalNot(condition))),
    }),
  },
  [tf.BatchMatMul]: {
    inputsToSave: ['a', 'b'],
    gradFunc: (dy, [a, b], attrs) => {
      const d = dy as tf.Tensor;
      const ta = attrs.transposeA === true;
      const tb = attrs.transposeB === true;
      if (transposesAreFree()) {
        // BLAS and the GPU kernels read transposed operands in place: pass flags, never copy.
        if (!ta && !tb) return { a: () => tf.matMul(d, b, false, true), b: () => tf.matMul(a, d, true, false) };
        if (!ta && tb) return { a: () => tf.matMul(d, b), b: () => tf.matMul(d, a, true, false) };
        if (ta && !tb) return { a: () => tf.matMul(b, d, false, true), b: () => tf.matMul(a, d) };
        return { a: () => tf.matMul(b, d, true, true), b: () => tf.matMul(d, a, true, true) };
      }
      // Plain matmuls on explicit transposes: pure tfjs-wasm runs transposed matmuls 10–40× slower.
      const T = transposeLast2;
      if (!ta && !tb) return { a: () => tf.matMul(d, T(b)), b: () => tf.matMul(T(a), d) };
      if (!ta && tb) return { a: () => tf.matMul(d, b), b: () => tf.matMul(T(d), a) };
      if (ta && !tb) return { a: () => tf.matMul(b, T(d)), b: () => tf.matMul(a, d) };
      return { a: () => T(tf.matMul(d, b)), b: () => T(tf.matMul(a, d)) };
    },
  },
};

/** Kernels whose outputs are piecewise constant: their gradient is zero wherever it exists. */
const ZERO_GRADIENT: Record<string, string[]> = {
  [tf.Greater]: ['a', 'b'],
  [tf.GreaterEqual]: ['a', 'b'],
  [tf.Less]: ['a', 'b'],
  [tf.LessEqual]: ['a', 'b'],
  [tf.Equal]: ['a', 'b'],
  [tf.NotEqual]: ['a', 'b'],
  [tf.Sign]: ['x'],
  [tf.Floor]: ['x'],
  [tf.Ceil]: ['x'],
  [tf.Round]: ['x'],
  [tf.ArgMax]: ['x'],
  [tf.ArgMin]: ['x'],
};

let registered = false;

/** Registers every gradient above with tfjs (once per thread). */
export function registerGradients(): void {
  if (registered) return;
  registered = true;
  for (const [kernelName, cfg] of Object.entries(GRADIENTS)) {
    if (tf.getGradient(kernelName)) continue;
    tf.registerGradient({ kernelName, ...cfg } as tf.GradConfig);
  }
  for (const [kernelName, inputs] of Object.entries(ZERO_GRADIENT)) {
    if (tf.getGradient(kernelName)) continue;
    tf.registerGradient({
      kernelName,
      inputsToSave: inputs,
      gradFunc: (_dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) =>
        Object.fromEntries(inputs.map((n, i) => [n, () => tf.zeros(saved[i].shape)])),
    } as tf.GradConfig);
  }
}

registerGradients();
