import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests run from dist/test/..., sources live in test/...). */
export const ROOT = process.env.CLAWLOOP_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');
export const FIXTURE_MODELS = ['llama-gqa', 'qwen2-tied', 'qwen3-qknorm', 'mistral-swa'] as const;
export type FixtureModel = (typeof FIXTURE_MODELS)[number];

/** A BF16 Qwen3 checkpoint in three shards (memory-mapped on the native backend), with float32 and bfloat16 references. */
export const BF16_SHARDED = 'qwen3-bf16-sharded';

export function modelDir(name: FixtureModel | typeof BF16_SHARDED): string {
  return path.join(FIXTURES, 'models', name);
}
