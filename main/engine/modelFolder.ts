import fs from 'node:fs';
import path from 'node:path';
import { ChatTemplate } from './chatTemplate.js';
import { ModelConfigError, expectedWeights, parameterCount, parseModelConfig, type ModelConfig } from './config.js';
import { SafetensorsError, WeightFiles, type TensorEntry } from './safetensors.js';
import { TextTokenizer, TokenizerError } from './tokenizer.js';

/** The weights do not match what config.json implies. */
export class WeightsError extends Error {
  override name = 'WeightsError';
}

/** A folder that is not a model ClawLoop can serve; the message names the file and what is wrong. */
export class ModelFolderError extends Error {
  override name = 'ModelFolderError';
}

/** Tensors some checkpoints carry that the model recomputes (safe to ignore). */
const IGNORABLE = [/\.rotary_emb\.inv_freq$/];

const sameShape = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((d, i) => d === b[i]);

/**
 * Compares the tensors of a weight file set with those `config` implies: every missing, extra or
 * misshapen tensor is reported by name, before anything is allocated.
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
    else if (!sameShape(e.shape, shape)) problems.push(`'${name}' has shape ${JSON.stringify(e.shape)}; expected ${JSON.stringify(shape)}`);
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

export interface ModelFolderSummary {
  dir: string;
  architecture: string;
  parameters: number;
  contextLength: number;
  /** Weight dtypes found (F32, F16, BF16). */
  dtypes: string[];
  weightBytes: number;
  hasChatTemplate: boolean;
}

/**
 * Checks that `dir` is a model ClawLoop can serve, reading only JSON files and safetensors
 * headers (fast, no weights loaded): config.json (supported architecture), tokenizer.json,
 * the chat template, and that the weights hold exactly the tensors the config implies.
 */
export function inspectModelFolder(dir: string): ModelFolderSummary {
  const abs = path.resolve(dir);
  if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) {
    throw new ModelFolderError(`'${dir}' is not a folder; choose a Hugging Face model folder (config.json, *.safetensors, tokenizer.json)`);
  }
  const configFile = path.join(abs, 'config.json');
  if (!fs.existsSync(configFile)) throw new ModelFolderError(`${configFile} is missing; is '${dir}' a Hugging Face model folder?`);
  try {
    const config = parseModelConfig(JSON.parse(fs.readFileSync(configFile, 'utf8')));
    const tokenizer = TextTokenizer.fromDir(abs);
    const template = ChatTemplate.fromDir(abs, tokenizer.config, {});
    const files = WeightFiles.open(abs);
    const { problems } = checkWeights(config, files);
    assertWeights(config, problems);
    const entries = files.names().map((n) => files.get(n)!);
    return {
      dir: abs,
      architecture: config.architecture,
      parameters: parameterCount(config),
      contextLength: config.maxPositions,
      dtypes: [...new Set(entries.map((e) => e.dtype))],
      weightBytes: entries.reduce((a, e) => a + (e.end - e.start), 0),
      hasChatTemplate: template !== null,
    };
  } catch (err) {
    if (err instanceof SyntaxError) throw new ModelFolderError(`${configFile} is not valid JSON: ${err.message}`);
    if (err instanceof ModelConfigError || err instanceof TokenizerError || err instanceof SafetensorsError || err instanceof WeightsError) {
      throw new ModelFolderError(`${abs} is not a model ClawLoop can serve: ${err.message}`);
    }
    throw err;
  }
}
