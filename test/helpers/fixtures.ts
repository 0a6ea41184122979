import fs from 'node:fs';
import path from 'node:path';
import { parseModelConfig, type ModelConfig } from '../../main/engine/model/config.js';
import { readSafetensors } from '../../main/engine/formats/safetensors.js';
import { modelDir, type BF16_SHARDED, type FixtureModel } from './paths.js';

/** What scripts/reference/make_fixtures.py computed with PyTorch for one tiny model. */
export interface Expected {
  ids: number[][];
  greedy_prompt: number[];
  greedy: number[];
  mask: number[][];
  weights: number[][];
  lora: { r: number; alpha: number; targets: string[] };
  loss: number;
  full_loss: number | null;
  adamw: { lr: number; betas: [number, number]; eps: number; weight_decay: number; max_grad_norm: number };
  grad_norms: number[];
  tensors: Map<string, { shape: number[]; data: Float32Array }>;
}

const cache = new Map<string, Expected>();

export function expected(name: FixtureModel | typeof BF16_SHARDED): Expected {
  let e = cache.get(name);
  if (!e) {
    const dir = modelDir(name);
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8'));
    e = { ...json, tensors: readSafetensors(path.join(dir, 'expected.safetensors')).tensors } as Expected;
    cache.set(name, e);
  }
  return e;
}

export function tensor(e: Expected, name: string): Float32Array {
  const t = e.tensors.get(name);
  if (!t) throw new Error(`fixture tensor '${name}' is missing; run npm run fixtures`);
  return t.data;
}

/** The parsed config.json of a fixture model (for tolerances derived from its shape). */
export function fixtureConfig(name: FixtureModel): ModelConfig {
  return parseModelConfig(JSON.parse(fs.readFileSync(path.join(modelDir(name), 'config.json'), 'utf8')));
}
