/** Architectures ClawLoop can load, keyed by the Hugging Face `architectures[0]` class name. */
export const SUPPORTED_ARCHITECTURES = {
  LlamaForCausalLM: 'llama',
  MistralForCausalLM: 'mistral',
  Qwen2ForCausalLM: 'qwen2',
  Qwen3ForCausalLM: 'qwen3',
} as const;

export type Architecture = (typeof SUPPORTED_ARCHITECTURES)[keyof typeof SUPPORTED_ARCHITECTURES];

/** RoPE frequency scaling. `none` is plain RoPE. */
export type RopeScaling =
  | { type: 'none' }
  | { type: 'linear'; factor: number }
  | { type: 'llama3'; factor: number; lowFreqFactor: number; highFreqFactor: number; originalMaxPositions: number };

/** The Linear projections of a decoder layer; LoRA can target any of them. */
export const PROJECTIONS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type Projection = (typeof PROJECTIONS)[number];

/** A decoder-only transformer's shape, normalised from a Hugging Face `config.json`. */
export interface ModelConfig {
  architecture: Architecture;
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  /** Per-head width; Qwen3 sets it independently of hiddenSize / numHeads. */
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  ropeScaling: RopeScaling;
  maxPositions: number;
  tieWordEmbeddings: boolean;
  /** Projections that carry a bias vector. */
  biases: ReadonlySet<Projection>;
  /** Qwen3: RMSNorm over each head of q and k before RoPE. */
  qkNorm: boolean;
  /** Mistral: a key is visible only if query position - key position < slidingWindow. */
  slidingWindow: number | null;
  /** Token ids that end generation, from config.json (merged later with generation_config.json). */
  eosTokenIds: number[];
  bosTokenId: number | null;
}

/** A config.json field is missing, mistyped or unsupported. */
export class ModelConfigError extends Error {
  override name = 'ModelConfigError';
}

type Json = Record<string, unknown>;

function num(cfg: Json, key: string, fallback?: number): number {
  const v = cfg[key];
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new ModelConfigError(`config.json: '${key}' is missing; it must be a number`);
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new ModelConfigError(`config.json: '${key}' is ${JSON.stringify(v)}; expected a number`);
  }
  return v;
}

function positiveInt(cfg: Json, key: string, fallback?: number): number {
  const v = num(cfg, key, fallback);
  if (!Number.isInteger(v) || v <= 0) throw new ModelConfigError(`config.json: '${key}' is ${v}; expected a positive integer`);
  return v;
}

function idList(v: unknown): number[] {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.filter((x): x is number => Number.isInteger(x));
}

function parseRopeScaling(raw: unknown): RopeScaling {
  if (raw === undefined || raw === null) return { type: 'none' };
  if (typeof raw !== 'object') throw new ModelConfigError(`config.json: 'rope_scaling' must be an object or null`);
  const r = raw as Json;
  const kind = String(r.rope_type ?? r.type ?? 'default');
  switch (kind) {
    case 'default':
      return { type: 'none' };
    case 'linear':
      return { type: 'linear', factor: num(r, 'factor') };
    case 'llama3':
      return {
        type: 'llama3',
        factor: num(r, 'factor'),
        lowFreqFactor: num(r, 'low_freq_factor'),
        highFreqFactor: num(r, 'high_freq_factor'),
        originalMaxPositions: num(r, 'original_max_position_embeddings'),
      };
    default:
      throw new ModelConfigError(`config.json: rope_scaling type '${kind}' is not supported; supported: default (none), linear, llama3`);
  }
}

/** Normalises and validates a Hugging Face `config.json` object. */
export function parseModelConfig(cfg: Json): ModelConfig {
  const archs = cfg.architectures;
  const archName = Array.isArray(archs) && typeof archs[0] === 'string' ? archs[0] : undefined;
  const supported = Object.keys(SUPPORTED_ARCHITECTURES).join(', ');
  if (!archName) {
    throw new ModelConfigError(`config.json has no 'architectures' entry (model_type '${cfg.model_type}'); supported: ${supported}`);
  }
  const architecture = SUPPORTED_ARCHITECTURES[archName as keyof typeof SUPPORTED_ARCHITECTURES];
  if (!architecture) {
    throw new ModelConfigError(`config.json has architecture '${archName}' (model_type '${cfg.model_type}'); supported: ${supported}`);
  }
  const act = cfg.hidden_act ?? 'silu';
  if (act !== 'silu' && act !== 'swish') {
    throw new ModelConfigError(`config.json: hidden_act '${act}' is not supported; supported: silu`);
  }
  if ((architecture === 'qwen2' || architecture === 'qwen3') && cfg.use_sliding_window === true) {
    throw new ModelConfigError(
      `config.json: use_sliding_window=true (per-layer sliding windows of ${architecture}) is not supported; set it to false`,
    );
  }
  const hiddenSize = positiveInt(cfg, 'hidden_size');
  const numHeads = positiveInt(cfg, 'num_attention_heads');
  const numKvHeads = positiveInt(cfg, 'num_key_value_heads', numHeads);
  if (numHeads % numKvHeads !== 0) {
    throw new ModelConfigError(`config.json: num_attention_heads (${numHeads}) must be a multiple of num_key_value_heads (${numKvHeads})`);
  }
  const headDim = positiveInt(cfg, 'head_dim', Math.floor(hiddenSize / numHeads));
  if (headDim % 2 !== 0) throw new ModelConfigError(`config.json: head_dim ${headDim} must be even for RoPE`);

  const biases = new Set<Projection>();
  if (architecture === 'qwen2') ['q_proj', 'k_proj', 'v_proj'].forEach((p) => biases.add(p as Projection));
  else if (cfg.attention_bias === true) ['q_proj', 'k_proj', 'v_proj', 'o_proj'].forEach((p) => biases.add(p as Projection));
  if (cfg.mlp_bias === true) ['gate_proj', 'up_proj', 'down_proj'].forEach((p) => biases.add(p as Projection));

  const window = architecture === 'mistral' && typeof cfg.sliding_window === 'number' ? cfg.sliding_window : null;
  return {
    architecture,
    vocabSize: positiveInt(cfg, 'vocab_size'),
    hiddenSize,
    intermediateSize: positiveInt(cfg, 'intermediate_size'),
    numLayers: positiveInt(cfg, 'num_hidden_layers'),
    numHeads,
    numKvHeads,
    headDim,
    rmsNormEps: num(cfg, 'rms_norm_eps', 1e-6),
    ropeTheta: num(cfg, 'rope_theta', 10000),
    ropeScaling: parseRopeScaling(cfg.rope_scaling),
    maxPositions: positiveInt(cfg, 'max_position_embeddings', 4096),
    tieWordEmbeddings: cfg.tie_word_embeddings === true,
    biases,
    qkNorm: architecture === 'qwen3',
    slidingWindow: window,
    eosTokenIds: idList(cfg.eos_token_id),
    bosTokenId: Number.isInteger(cfg.bos_token_id) ? (cfg.bos_token_id as number) : null,
  };
}

/** Hugging Face tensor names and [out, in] shapes of every weight the config implies. */
export function expectedWeights(c: ModelConfig): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const H = c.hiddenSize;
  out.set('model.embed_tokens.weight', [c.vocabSize, H]);
  out.set('model.norm.weight', [H]);
  if (!c.tieWordEmbeddings) out.set('lm_head.weight', [c.vocabSize, H]);
  const dims = projectionDims(c);
  for (let l = 0; l < c.numLayers; l++) {
    const p = `model.layers.${l}.`;
    out.set(`${p}input_layernorm.weight`, [H]);
    out.set(`${p}post_attention_layernorm.weight`, [H]);
    for (const proj of PROJECTIONS) {
      const [o, i] = dims[proj];
      out.set(`${p}${projectionModule(proj)}.${proj}.weight`, [o, i]);
      if (c.biases.has(proj)) out.set(`${p}${projectionModule(proj)}.${proj}.bias`, [o]);
    }
    if (c.qkNorm) {
      out.set(`${p}self_attn.q_norm.weight`, [c.headDim]);
      out.set(`${p}self_attn.k_norm.weight`, [c.headDim]);
    }
  }
  return out;
}

/** [out, in] of each projection. */
export function projectionDims(c: ModelConfig): Record<Projection, [number, number]> {
  const H = c.hiddenSize;
  const q = c.numHeads * c.headDim;
  const kv = c.numKvHeads * c.headDim;
  const I = c.intermediateSize;
  return {
    q_proj: [q, H],
    k_proj: [kv, H],
    v_proj: [kv, H],
    o_proj: [H, q],
    gate_proj: [I, H],
    up_proj: [I, H],
    down_proj: [H, I],
  };
}

/** The submodule a projection lives in: `self_attn` or `mlp`. */
export function projectionModule(p: Projection): 'self_attn' | 'mlp' {
  return p === 'gate_proj' || p === 'up_proj' || p === 'down_proj' ? 'mlp' : 'self_attn';
}

/** Number of parameters, counting tied embeddings once. */
export function parameterCount(c: ModelConfig): number {
  let n = 0;
  for (const shape of expectedWeights(c).values()) n += shape.reduce((a, b) => a * b, 1);
  return n;
}
