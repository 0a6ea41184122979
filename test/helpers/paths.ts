import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests run from dist/test/..., sources live in test/...). */
export const ROOT = process.env.CLAWLOOP_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');
export const FIXTURE_MODELS = ['llama-gqa', 'qwen2-tied', 'qwen3-qknorm', 'mistral-swa'] as const;
export type FixtureModel = (typeof FIXTURE_MODELS)[number];

export function modelDir(name: FixtureModel): string {
  return path.join(FIXTURES, 'models', name);
}
