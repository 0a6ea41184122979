import * as tf from '@tensorflow/tfjs-core';
import type { GpuContext } from '../../../main/engine/backends/webgpu/gpuContext.js';
import { PackedWeight } from '../../../main/engine/model/packedWeight.js';
import { FUSED, runFused } from '../../../main/engine/ops/fusedKernels.js';
import type { GpuRecorder } from './gpuRecorder.js';
import { attentionFlops } from './opTags.js';
import type { ProfileShapes } from './profileShapes.js';

/*
 * The engine's own kernels alone, at the model's shapes: every GEMM variant (TFLOP/s), the GEMV of
 * decoding (GB/s of weights streamed) and attention at prefill and decode lengths.
 */

export interface KernelFigure {
  what: string;
  /** The pipelines that ran (ClawLoop kernel keys). */
  kernels: string[];
  /** Median ms: GPU time from timestamp queries, or wall time (read back) without them. */
  ms: number;
  timedOn: 'gpu' | 'wall';
  tflops?: number;
  gbs?: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median time of `fn`'s `kernel` dispatches over `reps` runs after one warm-up (which compiles). */
async function timeOp(
  rec: GpuRecorder,
  kernel: string,
  fn: () => tf.Tensor,
  reps: number,
): Promise<{ ms: number; on: 'gpu' | 'wall'; kernels: string[] }> {
  const gpu: number[] = [];
  const wall: number[] = [];
  let kernels: string[] = [];
  for (let r = 0; r <= reps; r++) {
    rec.reset();
    const t0 = performance.now();
    const out = fn();
    const probe = tf.tidy(() => tf.slice(tf.reshape(out, [-1]), 0, 1));
    await probe.data();
    const ms = performance.now() - t0;
    tf.dispose([out, probe]);
    const mine = (await rec.collect()).filter((x) => x.tag.name.startsWith(kernel));
    kernels = [...new Set(mine.map((x) => x.pipeline))];
    if (r === 0) continue;
    wall.push(ms);
    const ns = mine.reduce((s, x) => s + x.ns, 0);
    if (Number.isFinite(ns) && ns > 0) gpu.push(ns / 1e6);
  }
  return gpu.length ? { ms: median(gpu), on: 'gpu', kernels } : { ms: median(wall), on: 'wall', kernels };
}

function figure(what: string, t: Awaited<ReturnType<typeof timeOp>>, work: { flops?: number; bytes?: number }): KernelFigure {
  const f: KernelFigure = { what, kernels: t.kernels, ms: t.ms, timedOn: t.on };
  if (work.flops) f.tflops = work.flops / (t.ms / 1000) / 1e12;
  if (work.bytes) f.gbs = work.bytes / (t.ms / 1000) / 1e9;
  return f;
}

/** n values in [−scale, scale) from a small LCG (speed does not depend on them; made on the CPU, fast). */
function values(n: number, seed: number, scale: number): Float32Array {
  const out = new Float32Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = (x / 2 ** 31 - 1) * scale;
  }
  return out;
}

const rand = (shape: number[], seed: number) => tf.tensor(values(tf.util.sizeFromShape(shape), seed, 1), shape, 'float32');

function packed(K: number, N: number, format: 'bf16' | 'f16', seed: number): PackedWeight {
  return PackedWeight.pack(values(K * N, seed, 0.05), K, N, format);
}

/** Every GEMM variant on the widest projection (gate/up), and the BF16 path on every projection. */
export async function gemmVariants(ctx: GpuContext, rec: GpuRecorder, s: ProfileShapes, reps: number): Promise<KernelFigure[]> {
  const out: KernelFigure[] = [];
  const M = s.gemmRows;
  const [K, N] = s.projections.gate;
  const x = rand([M, K], 1);
  const dy = rand([M, N], 2);
  const wf = rand([K, N], 3);
  const flops = 2 * M * N * K;
  const label = `[${M}×${K}]·[${K}×${N}]`;
  try {
    const variants: Array<[string, string, () => tf.Tensor]> = [
      [`f32 A·B ${label}`, tf.BatchMatMul, () => tf.matMul(x, wf)],
      [`f32 A·Bᵀ (backward dX) [${M}×${N}]·[${K}×${N}]ᵀ`, tf.BatchMatMul, () => tf.matMul(dy, wf, false, true)],
      [`f32 Aᵀ·B (weight gradient) [${M}×${K}]ᵀ·[${M}×${N}]`, tf.BatchMatMul, () => tf.matMul(x, dy, true, false)],
    ];
    for (const [what, kernel, fn] of variants) out.push(figure(what, await timeOp(rec, kernel, fn, reps), { flops }));
    if (ctx.coop) {
      const coop = ctx.coop;
      ctx.coop = null;
      try {
        out.push(
          figure(`f32 A·B ${label}, cooperative matrices off`, await timeOp(rec, tf.BatchMatMul, () => tf.matMul(x, wf), reps), { flops }),
        );
      } finally {
        ctx.coop = coop;
      }
    }
    for (const format of ['bf16', 'f16'] as const) {
      const w = packed(K, N, format, 4);
      try {
        out.push(figure(`${format} weights x·W ${label}`, await timeOp(rec, FUSED.matmulW16, () => w.matmul(x), reps), { flops }));
        out.push(
          figure(`${format} weights dy·Wᵀ [${M}×${N}]·[${K}×${N}]ᵀ`, await timeOp(rec, FUSED.matmulW16, () => w.matmul(dy, true), reps), {
            flops,
          }),
        );
      } finally {
        w.words.dispose();
      }
    }
    for (const [name, [k, n]] of Object.entries(s.projections)) {
      if (name === 'gate') continue;
      const w = packed(k, n, 'bf16', 5);
      const xi = rand([M, k], 6);
      try {
        out.push(
          figure(`bf16 weights ${name} [${M}×${k}]·[${k}×${n}]`, await timeOp(rec, FUSED.matmulW16, () => w.matmul(xi), reps), {
            flops: 2 * M * k * n,
          }),
        );
      } finally {
        w.words.dispose();
        xi.dispose();
      }
    }
  } finally {
    tf.dispose([x, dy, wf]);
  }
  return out;
}

/** Decoding's products at batch 1: GB/s of the weights streamed (x is negligible). */
export async function gemvFigures(ctx: GpuContext, rec: GpuRecorder, s: ProfileShapes, reps: number): Promise<KernelFigure[]> {
  const out: KernelFigure[] = [];
  for (const [name, [K, N]] of Object.entries(s.projections)) {
    const w = packed(K, N, 'bf16', 7);
    const x = rand([1, K], 8);
    try {
      out.push(
        figure(`GEMV bf16 ${name} [1×${K}]·[${K}×${N}]`, await timeOp(rec, FUSED.matmulW16, () => w.matmul(x), reps), { bytes: K * N * 2 }),
      );
    } finally {
      w.words.dispose();
      x.dispose();
    }
  }
  // The tied LM head: x · Eᵀ with the f32 embedding [vocab, hidden], as the engine keeps it.
  const [V, H] = s.lmHead;
  // 1.5 GiB at Qwen3's shape: filled on the GPU where one binding holds it, else uploaded.
  const e = V * H * 4 <= ctx.maxBinding ? tf.fill([V, H], 0.02) : tf.tensor(values(V * H, 9, 0.02), [V, H]);
  const x = rand([1, H], 10);
  try {
    out.push(
      figure(`GEMV f32 LM head [1×${H}]·[${V}×${H}]ᵀ`, await timeOp(rec, tf.BatchMatMul, () => tf.matMul(x, e, false, true), reps), {
        bytes: V * H * 4,
      }),
    );
  } finally {
    tf.dispose([e, x]);
  }
  return out;
}

/** ClawLoop's attention kernel: causal prefill of T tokens, and one query against S keys. */
export async function attentionFigures(rec: GpuRecorder, s: ProfileShapes, reps: number): Promise<KernelFigure[]> {
  const { heads: H, kvHeads: KVH, headDim: D } = s;
  const out: KernelFigure[] = [];
  const cases: Array<[string, number, number, number]> = [
    [`prefill B ${s.prefill[0]}, T ${s.prefill[1]}`, s.prefill[0], s.prefill[1], s.prefill[1]],
    ...s.decodeKeys.map((S): [string, number, number, number] => [`decode B 1, 1 query, ${S} keys`, 1, 1, S]),
  ];
  for (const [what, B, T, S] of cases) {
    const q = rand([B, H, T, D], 11);
    const kT = rand([B, KVH, D, S], 12);
    const v = rand([B, KVH, S, D], 13);
    const rows = tf.tensor2d(Array.from({ length: B }, () => [S - T, 0]).flat(), [B, 2], 'int32');
    try {
      const run = () => runFused<tf.Tensor>(FUSED.attention, { q, kT, v, rows }, { window: 0, scale: 1 / Math.sqrt(D) });
      const t = await timeOp(rec, FUSED.attention, run, reps);
      out.push(
        figure(`attention ${what} (H ${H}, KV ${KVH}, D ${D})`, t, {
          flops: attentionFlops(B, H, T, S, D),
          bytes: 2 * B * KVH * S * D * 4,
        }),
      );
    } finally {
      tf.dispose([q, kT, v, rows]);
    }
  }
  return out;
}
