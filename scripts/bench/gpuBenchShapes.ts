/** The models and workloads of `npm run bench:gpu`, shared with scripts/reference/bench_gpu.py. */

/** config.json of a Qwen3-shaped model with random weights (the real models' shapes). */
export const GPU_BENCH_SHAPES: Record<string, Record<string, unknown>> = {
  'qwen3-0.6b': qwen3(1024, 3072, 28, 16, 8),
  'qwen3-4b': qwen3(2560, 9728, 36, 32, 8),
  // Not a real model: small enough for the software adapter, to check the script end to end.
  tiny: { ...qwen3(64, 128, 2, 4, 2), head_dim: 16, vocab_size: 512 },
};

function qwen3(hidden: number, intermediate: number, layers: number, heads: number, kvHeads: number): Record<string, unknown> {
  return {
    architectures: ['Qwen3ForCausalLM'],
    model_type: 'qwen3',
    hidden_size: hidden,
    intermediate_size: intermediate,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: kvHeads,
    head_dim: 128,
    vocab_size: 151936,
    rms_norm_eps: 1e-6,
    rope_theta: 1000000,
    tie_word_embeddings: true,
    max_position_embeddings: 40960,
  };
}

/** What is measured, in the same way on both sides. */
export interface GpuWorkload {
  /** Prefill batches: [batch, sequence length]. */
  prefill: Array<[number, number]>;
  /** Decoding: prompt length, new tokens, and the batch sizes. */
  decode: { prompt: number; tokens: number; batches: number[] };
  /** LoRA training batch [batch, sequence length], rank, alpha (every projection adapted). */
  train: { batch: number; seq: number; r: number; alpha: number };
  /** Timed repetitions after one warm-up; the median is reported. */
  iters: number;
}

export const DEFAULT_WORKLOAD: GpuWorkload = {
  prefill: [
    [8, 128],
    [4, 1024],
  ],
  decode: { prompt: 128, tokens: 64, batches: [1, 8] },
  train: { batch: 8, seq: 128, r: 16, alpha: 32 },
  iters: 3,
};

export const TINY_WORKLOAD: GpuWorkload = {
  prefill: [[2, 16]],
  decode: { prompt: 8, tokens: 4, batches: [1, 2] },
  train: { batch: 2, seq: 16, r: 4, alpha: 8 },
  iters: 1,
};

/** The figures of one engine on one model. */
export interface GpuFigures {
  /** Prefill tokens/s per "BxT" batch. */
  prefill_tok_s: Record<string, number>;
  /** Decode tokens/s (all rows together) per batch size; ClawLoop's GPU decoder (outside tfjs) under {@link GPU_DECODER_KEY}. */
  decode_tok_s: Record<string, number>;
  train_lora_tok_s: number;
  /** Largest GPU memory held during the run, bytes. */
  peak_memory_bytes: number;
}

/** The decode_tok_s key of ClawLoop's GPU decoder at batch 1 (compared with PyTorch's batch 1). */
export const GPU_DECODER_KEY = '1 (GPU decoder)';

/** Deterministic token ids [batch][seq] spread over the vocabulary. */
export function benchTokens(batch: number, seq: number, vocab: number): number[][] {
  return Array.from({ length: batch }, (_, b) => Array.from({ length: seq }, (_, t) => (b * 7919 + t * 104729 + 13) % vocab));
}
