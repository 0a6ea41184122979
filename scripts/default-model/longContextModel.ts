import fs from 'node:fs';
import path from 'node:path';
import { CausalLM } from '../../main/engine/model/causalLM.js';
import { parseModelConfig } from '../../main/engine/model/config.js';
import { readSafetensors } from '../../main/engine/formats/safetensors.js';

/**
 * A model folder's weights with its context raised to `positions` (RoPE positions past the
 * trained ones), for the long-sequence benchmarks (benchLongStep, benchPrefill).
 */
export function longContextModel(dir: string, positions: number): CausalLM {
  const configJson = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  const config = parseModelConfig({ ...configJson, max_position_embeddings: Math.max(configJson.max_position_embeddings ?? 0, positions) });
  const { tensors } = readSafetensors(path.join(dir, 'model.safetensors'));
  return CausalLM.fromTensors(config, new Map([...tensors].map(([k, v]) => [k, v.data])));
}
