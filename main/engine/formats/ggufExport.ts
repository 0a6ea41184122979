import type { LoraAdapter } from '../model/lora.js';
import { mergeLoraInto } from '../model/loraMerge.js';
import type { CausalLM } from '../model/causalLM.js';
import { PROJECTIONS, projectionModule, type ModelConfig, type Projection } from '../model/config.js';
import { ropeInvFreq } from '../model/layers/rope.js';
import type { GgufTensor, GgufValue } from './ggufFile.js';

/** llama.cpp's architecture name for each of ours. Mistral runs as llama. */
const GGUF_ARCH: Record<ModelConfig['architecture'], string> = { llama: 'llama', mistral: 'llama', qwen2: 'qwen2', qwen3: 'qwen3' };

const GGUF_PROJ: Record<Projection, string> = {
  q_proj: 'attn_q',
  k_proj: 'attn_k',
  v_proj: 'attn_v',
  o_proj: 'attn_output',
  gate_proj: 'ffn_gate',
  up_proj: 'ffn_up',
  down_proj: 'ffn_down',
};

/**
 * llama.cpp applies RoPE to interleaved pairs for the llama architecture, while Hugging Face
 * rotates halves: reorder the rows of q/k (per head: [x0..x(d/2-1), x(d/2)..] -> pairs).
 */
function permuteRows(w: Float32Array, heads: number, rows: number, cols: number): Float32Array {
  const out = new Float32Array(w.length);
  const perHead = rows / heads;
  const half = perHead / 2;
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < half; i++) {
      for (let j = 0; j < 2; j++) {
        const src = h * perHead + j * half + i; // HF row: half j, index i
        const dst = h * perHead + i * 2 + j; // llama.cpp row: pair i, member j
        out.set(w.subarray(src * cols, (src + 1) * cols), dst * cols);
      }
    }
  }
  return out;
}

/** The tokenizer part of a GGUF file: tokens by id, their types, and BPE merges. */
export interface GgufVocab {
  tokens: string[];
  /** 1 normal, 3 control (special), 4 user-defined (added, not special), 5 unused. */
  types: number[];
  merges: string[];
  eosTokenId: number;
  bosTokenId?: number;
  /** llama.cpp's pre-tokenizer name ("qwen2", "llama-bpe", "default"). */
  pre: string;
}

/** The vocabulary of a Hugging Face tokenizer.json (byte-level BPE), padded to the model's vocab size. */
export function vocabFromTokenizerJson(
  tokenizerJson: Record<string, unknown>,
  vocabSize: number,
  eosTokenId: number,
  pre: string,
): GgufVocab {
  const model = tokenizerJson.model as { type?: string; vocab?: Record<string, number>; merges?: Array<string | [string, string]> };
  if (model?.type !== 'BPE' || !model.vocab) throw new Error('GGUF export supports BPE tokenizers (tokenizer.json model.type "BPE") only');
  const tokens = Array.from({ length: vocabSize }, (_, i) => `[PAD${i}]`);
  const types = new Array<number>(vocabSize).fill(5);
  for (const [tok, id] of Object.entries(model.vocab)) {
    if (id < vocabSize) {
      tokens[id] = tok;
      types[id] = 1;
    }
  }
  for (const t of (tokenizerJson.added_tokens as Array<{ id: number; content: string; special?: boolean }>) ?? []) {
    if (t.id < vocabSize) {
      tokens[t.id] = t.content;
      types[t.id] = t.special ? 3 : 4;
    }
  }
  const merges = (model.merges ?? []).map((m) => (Array.isArray(m) ? m.join(' ') : m));
  return { tokens, types, merges, eosTokenId, pre };
}

/**
 * The GGUF metadata and tensors of a model, with a LoRA adapter merged into its weights when one
 * is given, so a model trained with ClawLoop runs in llama.cpp, Ollama or LM Studio. Weights are
 * taken in Hugging Face layout from `lm.exportTensors()`.
 */
export async function ggufFromModel(
  lm: CausalLM,
  vocab: GgufVocab,
  name = 'clawloop',
  adapter: LoraAdapter | null = null,
): Promise<{ metadata: Array<[string, GgufValue]>; tensors: GgufTensor[]; warnings: string[] }> {
  const c = lm.config;
  const warnings: string[] = [];
  if (c.slidingWindow !== null && c.slidingWindow < c.maxPositions) {
    warnings.push(
      `llama.cpp runs ${c.architecture} as 'llama' without a sliding window: outputs match only while the context is at most ${c.slidingWindow} tokens`,
    );
  }
  const hf = new Map((await lm.exportTensors()).map((t) => [t.name, t]));
  if (adapter) await mergeLoraInto(hf, adapter);
  return { metadata: ggufMetadata(c, vocab, name), tensors: ggufTensors(c, hf), warnings };
}

/**
 * The same from Hugging Face-layout tensors by name (e.g. read from safetensors without loading a
 * model): matrices may be BF16/F16 bits (`type`), kept as they are. llama-architecture q/k
 * reordering needs float32 data.
 */
export function ggufFromTensors(
  c: ModelConfig,
  hf: Map<string, GgufTensor>,
  vocab: GgufVocab,
  name = 'clawloop',
  fileType = 0,
): { metadata: Array<[string, GgufValue]>; tensors: GgufTensor[] } {
  const metadata = ggufMetadata(c, vocab, name).map(([k, v]): [string, GgufValue] => (k === 'general.file_type' ? [k, { type: 'u32', value: fileType }] : [k, v]));
  return { metadata, tensors: ggufTensors(c, hf) };
}

/** The key/values llama.cpp reads: architecture and its hyper-parameters, then the tokenizer. */
function ggufMetadata(c: ModelConfig, vocab: GgufVocab, name: string): Array<[string, GgufValue]> {
  const arch = GGUF_ARCH[c.architecture];
  const metadata: Array<[string, GgufValue]> = [
    ['general.architecture', { type: 'string', value: arch }],
    ['general.name', { type: 'string', value: name }],
    ['general.file_type', { type: 'u32', value: 0 }], // all F32
    [`${arch}.context_length`, { type: 'u32', value: c.maxPositions }],
    [`${arch}.embedding_length`, { type: 'u32', value: c.hiddenSize }],
    [`${arch}.block_count`, { type: 'u32', value: c.numLayers }],
    [`${arch}.feed_forward_length`, { type: 'u32', value: c.intermediateSize }],
    [`${arch}.attention.head_count`, { type: 'u32', value: c.numHeads }],
    [`${arch}.attention.head_count_kv`, { type: 'u32', value: c.numKvHeads }],
    [`${arch}.attention.key_length`, { type: 'u32', value: c.headDim }],
    [`${arch}.attention.value_length`, { type: 'u32', value: c.headDim }],
    [`${arch}.rope.dimension_count`, { type: 'u32', value: c.headDim }],
    [`${arch}.rope.freq_base`, { type: 'f32', value: c.ropeTheta }],
    [`${arch}.attention.layer_norm_rms_epsilon`, { type: 'f32', value: c.rmsNormEps }],
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: vocab.pre }],
    ['tokenizer.ggml.tokens', { type: 'string[]', value: vocab.tokens }],
    ['tokenizer.ggml.token_type', { type: 'i32[]', value: vocab.types }],
    ['tokenizer.ggml.merges', { type: 'string[]', value: vocab.merges }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: vocab.eosTokenId }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: vocab.bosTokenId !== undefined }],
  ];
  if (vocab.bosTokenId !== undefined) metadata.push(['tokenizer.ggml.bos_token_id', { type: 'u32', value: vocab.bosTokenId }]);
  if (c.ropeScaling.type === 'linear') {
    metadata.push([`${arch}.rope.scaling.type`, { type: 'string', value: 'linear' }]);
    metadata.push([`${arch}.rope.scaling.factor`, { type: 'f32', value: c.ropeScaling.factor }]);
  }
  return metadata;
}

/** The model's tensors under llama.cpp's names, q/k rows reordered for the llama architecture. */
function ggufTensors(c: ModelConfig, hf: Map<string, { shape: number[]; data: Float32Array | Uint16Array; type?: GgufTensor['type'] }>): GgufTensor[] {
  const tensors: GgufTensor[] = [];
  const take = (hfName: string, ggufName: string, transform?: (t: { shape: number[]; data: Float32Array }) => Float32Array) => {
    const t = hf.get(hfName);
    if (!t) throw new Error(`GGUF export: the model has no '${hfName}'`);
    const g: GgufTensor = { name: ggufName, shape: t.shape, data: t.data, type: t.type };
    if (transform && !(t.data instanceof Float32Array)) throw new Error(`GGUF export: '${hfName}' must be float32 to be reordered`);
    tensors.push(transform ? { ...g, data: transform({ shape: t.shape, data: t.data as Float32Array }) } : g);
  };
  take('model.embed_tokens.weight', 'token_embd.weight');
  take('model.norm.weight', 'output_norm.weight');
  if (!c.tieWordEmbeddings) take('lm_head.weight', 'output.weight');
  if (c.ropeScaling.type === 'llama3') {
    // llama.cpp divides each base frequency by a per-dimension factor.
    const base = ropeInvFreq({ ...c, ropeScaling: { type: 'none' } });
    const scaled = ropeInvFreq(c);
    tensors.push({ name: 'rope_freqs.weight', shape: [base.length], data: Float32Array.from(base, (b, i) => b / scaled[i]) });
  }
  const interleaved = GGUF_ARCH[c.architecture] === 'llama';
  for (let l = 0; l < c.numLayers; l++) {
    const p = `model.layers.${l}.`;
    take(`${p}input_layernorm.weight`, `blk.${l}.attn_norm.weight`);
    take(`${p}post_attention_layernorm.weight`, `blk.${l}.ffn_norm.weight`);
    if (c.qkNorm) {
      take(`${p}self_attn.q_norm.weight`, `blk.${l}.attn_q_norm.weight`);
      take(`${p}self_attn.k_norm.weight`, `blk.${l}.attn_k_norm.weight`);
    }
    for (const proj of PROJECTIONS) {
      const mod = projectionModule(proj);
      const heads = proj === 'q_proj' ? c.numHeads : c.numKvHeads;
      const permute = interleaved && (proj === 'q_proj' || proj === 'k_proj');
      take(
        `${p}${mod}.${proj}.weight`,
        `blk.${l}.${GGUF_PROJ[proj]}.weight`,
        permute ? (t) => permuteRows(t.data, heads, t.shape[0], t.shape[1]) : undefined,
      );
      if (c.biases.has(proj)) {
        take(
          `${p}${mod}.${proj}.bias`,
          `blk.${l}.${GGUF_PROJ[proj]}.bias`,
          permute ? (t) => permuteRows(t.data, heads, t.shape[0], 1) : undefined,
        );
      }
    }
  }
  return tensors;
}
