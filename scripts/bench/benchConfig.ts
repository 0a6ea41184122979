/** The workload shared by `npm run bench:engine` and `npm run profile:engine`. */

/** The benchmark model: hidden 256, 4 layers, GQA 4/2 heads of 64, SwiGLU 768, vocab 2048, tied head. */
export const BENCH_CONFIG = {
  architectures: ['Qwen3ForCausalLM'],
  model_type: 'qwen3',
  hidden_size: 256,
  intermediate_size: 768,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  head_dim: 64,
  num_hidden_layers: 4,
  vocab_size: 2048,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  tie_word_embeddings: true,
  max_position_embeddings: 1024,
};
export const BATCH = 8;
export const SEQ = 128;
export const DECODE_TOKENS = 64;

/** Deterministic token ids [BATCH][SEQ] spread over the vocabulary. */
export function benchIds(): number[][] {
  const V = BENCH_CONFIG.vocab_size;
  return Array.from({ length: BATCH }, (_, b) => Array.from({ length: SEQ }, (_, t) => (b * 7919 + t * 104729) % V));
}
