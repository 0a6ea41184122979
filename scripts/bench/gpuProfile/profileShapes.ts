import { GPU_BENCH_SHAPES } from '../gpuBenchShapes.js';

/** What `npm run profile:gpu` measures at one size. */
export interface ProfileShapes {
  /** 'full' is the workload; the others are cut for the software adapter and say so. */
  size: 'full' | 'small' | 'tiny';
  /** Printed next to every figure of a cut size. */
  label: string;
  /** config.json of the profiled model (4 layers; full vocabulary except 'tiny'). */
  model: Record<string, unknown>;
  prefill: [number, number];
  decode: { prompt: number; tokens: number };
  train: { batch: number; seq: number; r: number; alpha: number };
  /** Bytes the read-bandwidth kernel streams (capped by the binding limit). */
  bandwidthBytes: number;
  /** Empty dispatches per measurement. */
  dispatches: number;
  /** Rows (tokens) of the GEMM ceilings. */
  gemmRows: number;
  /** [K, N] of each projection: q, kv (k and v), o, gate (and up), down. */
  projections: Record<'q' | 'kv' | 'o' | 'gate' | 'down', [number, number]>;
  /** [vocabulary, hidden] of the LM head GEMV. */
  lmHead: [number, number];
  heads: number;
  kvHeads: number;
  headDim: number;
  /** Key lengths of the decode-attention ceilings. */
  decodeKeys: number[];
  /** Timed repetitions of each ceiling (after one warm-up). */
  reps: number;
}

function projections(hidden: number, inter: number, heads: number, kvHeads: number, headDim: number): ProfileShapes['projections'] {
  return {
    q: [hidden, heads * headDim],
    kv: [hidden, kvHeads * headDim],
    o: [heads * headDim, hidden],
    gate: [hidden, inter],
    down: [inter, hidden],
  };
}

const QWEN3_4B = GPU_BENCH_SHAPES['qwen3-4b'];

export const PROFILE_SHAPES: Record<ProfileShapes['size'], ProfileShapes> = {
  full: {
    size: 'full',
    label: '',
    model: { ...QWEN3_4B, num_hidden_layers: 4 },
    prefill: [4, 1024],
    decode: { prompt: 128, tokens: 32 },
    train: { batch: 8, seq: 128, r: 16, alpha: 32 },
    bandwidthBytes: 2 ** 30,
    dispatches: 2000,
    gemmRows: 4096,
    projections: projections(2560, 9728, 32, 8, 128),
    lmHead: [151936, 2560],
    heads: 32,
    kvHeads: 8,
    headDim: 128,
    decodeKeys: [1024, 4096],
    reps: 3,
  },
  small: {
    size: 'small',
    label: ' [cut for the software adapter]',
    // Qwen3-4B's vocabulary with narrow layers; the LM head over 151,936 tokens dominates every
    // phase on the CPU, so 16 decode tokens, not 32.
    model: {
      ...QWEN3_4B,
      num_hidden_layers: 4,
      hidden_size: 128,
      intermediate_size: 384,
      num_attention_heads: 2,
      num_key_value_heads: 1,
      head_dim: 64,
    },
    prefill: [2, 64],
    decode: { prompt: 16, tokens: 16 },
    train: { batch: 2, seq: 32, r: 16, alpha: 32 },
    bandwidthBytes: 64 * 2 ** 20,
    dispatches: 200,
    // The kernel ceilings at Qwen3-0.6B's projection shapes: 4B's take minutes on the CPU.
    gemmRows: 32,
    projections: projections(1024, 3072, 16, 8, 128),
    lmHead: [151936, 128],
    heads: 16,
    kvHeads: 8,
    headDim: 128,
    decodeKeys: [256],
    reps: 1,
  },
  tiny: {
    size: 'tiny',
    label: ' [tiny: checks the script, not the shapes]',
    model: { ...GPU_BENCH_SHAPES.tiny, num_hidden_layers: 4 },
    prefill: [2, 16],
    decode: { prompt: 8, tokens: 4 },
    train: { batch: 2, seq: 16, r: 4, alpha: 8 },
    bandwidthBytes: 4 * 2 ** 20,
    dispatches: 50,
    gemmRows: 16,
    projections: projections(64, 128, 4, 2, 16),
    lmHead: [512, 64],
    heads: 4,
    kvHeads: 2,
    headDim: 16,
    decodeKeys: [32],
    reps: 1,
  },
};
