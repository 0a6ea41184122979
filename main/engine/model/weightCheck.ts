import type { WeightFiles } from '../formats/weightFiles.js';
import { expectedWeights, type ModelConfig } from './config.js';
import { shapeSize, shapesEqual } from './tensorUtil.js';

export class WeightsError extends Error {
  override name = 'WeightsError';
}

/** Tensors that are buffers in some checkpoints and never weights. */
const IGNORABLE = [/\.rotary_emb\.inv_freq$/];

/**
 * Checks a model's safetensors against its config before anything is allocated: every missing,
 * extra or misshapen tensor is reported by name (the first 20). Returns the names of tensors the
 * model does not use and may ignore (RoPE buffers, an lm_head tied to the embedding).
 */
export function checkWeightFiles(config: ModelConfig, files: WeightFiles): string[] {
  const expected = expectedWeights(config);
  const problems: string[] = [];
  const ignored: string[] = [];
  for (const [name, shape] of expected) {
    const e = files.get(name);
    if (!e) problems.push(`missing '${name}' ${JSON.stringify(shape)}`);
    else if (!shapesEqual(e.shape, shape))
      problems.push(`'${name}' has shape ${JSON.stringify(e.shape)}; expected ${JSON.stringify(shape)}`);
  }
  for (const name of files.names()) {
    if (expected.has(name)) continue;
    if (IGNORABLE.some((re) => re.test(name)) || (config.tieWordEmbeddings && name === 'lm_head.weight')) ignored.push(name);
    else problems.push(`unexpected tensor '${name}'`);
  }
  if (problems.length) {
    const shown = problems.slice(0, 20).join('\n  ');
    const more = problems.length > 20 ? `\n  … and ${problems.length - 20} more` : '';
    throw new WeightsError(`the weights do not match config.json (${config.architecture}):\n  ${shown}${more}`);
  }
  return ignored;
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
