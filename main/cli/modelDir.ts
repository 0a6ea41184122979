import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_MODEL, defaultModelDir } from '../resources.js';
import { UsageError } from './args.js';

/** --model, else the bundled default model (with a clear error when it is missing). */
export function resolveModelDir(flag: string | undefined): string {
  if (flag) return path.resolve(flag);
  const dir = defaultModelDir();
  if (!fs.existsSync(path.join(dir, 'config.json'))) {
    throw new UsageError(
      `no --model given and the bundled ${DEFAULT_MODEL} model is missing at ${dir}; pass --model DIR (a Hugging Face model folder) or rebuild it with: npm run train:default`,
    );
  }
  return dir;
}
