import fs from 'node:fs';
import path from 'node:path';
import { ModelConfigError, parameterCount, parseModelConfig } from '../model/config.js';
import { assertWeights, checkWeights, WeightsError } from '../model/weightCheck.js';
import { ChatTemplate } from '../text/chatTemplate.js';
import { TextTokenizer, TokenizerError } from '../text/tokenizer.js';
import { SafetensorsError } from './safetensors.js';
import { WeightFiles } from './weightFiles.js';

/** A folder that is not a model ClawLoop can serve; the message names the file and what is wrong. */
export class ModelFolderError extends Error {
  override name = 'ModelFolderError';
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

/** A JSON file's value; a file that is not JSON is named, its content never quoted. */
function readJson(file: string): Record<string, unknown> {
  const text = fs.readFileSync(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new ModelFolderError(`${file} is not valid JSON`);
  }
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
    const config = parseModelConfig(readJson(configFile));
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
    // Never the parser's message: it quotes the file's first characters, and a model folder's
    // files may be links to any file the user can read.
    if (err instanceof SyntaxError) throw new ModelFolderError(`${abs}: tokenizer.json or tokenizer_config.json is not valid JSON`);
    if (
      err instanceof ModelConfigError ||
      err instanceof TokenizerError ||
      err instanceof SafetensorsError ||
      err instanceof WeightsError
    ) {
      throw new ModelFolderError(`${abs} is not a model ClawLoop can serve: ${err.message}`);
    }
    throw err;
  }
}
