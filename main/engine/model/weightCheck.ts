/**
 * Do a model's weights match its config? Checked before anything is allocated, reading only
 * safetensors headers; nothing here loads tfjs (the HTTP thread inspects model folders with it).
 */
import type { TensorEntry } from '../formats/safetensors.js';
import { expectedWeights, type ModelConfig } from './config.js';
import { shapeSize, shapesEqual } from './shapes.js';

/** The weights do not match what config.json implies. */
export class WeightsError extends Error {
  override name = 'WeightsError';
}

/** The dtypes model weights can be stored in. */
const WEIGHT_DTYPES = new Set(['F32', 'F16', 'BF16', 'F64']);

/** Tensors some checkpoints carry that the model recomputes (safe to ignore). */
const IGNORABLE = [/\.rotary_emb\.inv_freq$/];

/**
 * Compares the tensors of a weight file set with those `config` implies: every missing, extra or
 * misshapen tensor is reported by name. `ignored` lists the tensors the model does not use and may
 * skip (RoPE buffers, an lm_head tied to the embedding).
 */
export function checkWeights(
  config: ModelConfig,
  files: { get(name: string): TensorEntry | undefined; names(): string[] },
): { problems: string[]; ignored: string[] } {
  const expected = expectedWeights(config);
  const problems: string[] = [];
  const ignored: string[] = [];
  for (const [name, shape] of expected) {
    const e = files.get(name);
    if (!e) problems.push(`missing '${name}' ${JSON.stringify(shape)}`);
    else if (!shapesEqual(e.shape, shape))
      problems.push(`'${name}' in ${e.file} has shape ${JSON.stringify(e.shape)}; expected ${JSON.stringify(shape)}`);
    else if (!WEIGHT_DTYPES.has(e.dtype))
      problems.push(
        `'${name}' in ${e.file} is ${e.dtype}; weights must be F32, F16 or BF16 (a quantized checkpoint? use the original BF16 or F16 release)`,
      );
  }
  for (const name of files.names()) {
    if (expected.has(name)) continue;
    if (IGNORABLE.some((re) => re.test(name)) || (config.tieWordEmbeddings && name === 'lm_head.weight')) ignored.push(name);
    else problems.push(`unexpected tensor '${name}'`);
  }
  return { problems, ignored };
}

/** Throws a WeightsError listing the problems checkWeights found (at most 20 shown). */
export function assertWeights(config: ModelConfig, problems: string[]): void {
  if (!problems.length) return;
  const shown = problems.slice(0, 20).join('\n  ');
  const more = problems.length > 20 ? `\n  … and ${problems.length - 20} more` : '';
  throw new WeightsError(`the weights do not match config.json (${config.architecture}):\n  ${shown}${more}`);
}

/** Checks in-memory Hugging Face-layout tensors against a config: each present with the right size. */
export function checkTensors(config: ModelConfig, tensors: Map<string, Float32Array>): void {
  for (const [name, shape] of expectedWeights(config)) {
    const t = tensors.get(name);
    if (!t) throw new WeightsError(`missing tensor '${name}'`);
    if (t.length !== shapeSize(shape)) throw new WeightsError(`tensor '${name}' has ${t.length} values; expected ${JSON.stringify(shape)}`);
  }
}

/** Checks that a LoRA adapter made for model `m` fits a model of config `c`. */
export function checkAdapterFits(m: ModelConfig, c: ModelConfig): void {
  if (
    m.numLayers !== c.numLayers ||
    m.hiddenSize !== c.hiddenSize ||
    m.intermediateSize !== c.intermediateSize ||
    m.numHeads * m.headDim !== c.numHeads * c.headDim ||
    m.numKvHeads * m.headDim !== c.numKvHeads * c.headDim
  ) {
    throw new WeightsError('the LoRA adapter was made for a model of a different shape');
  }
}
