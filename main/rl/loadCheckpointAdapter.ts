import fs from 'node:fs';
import { LoraAdapter, type ModelConfig } from '../engine/index.js';
import { checkpointDir } from './checkpointFiles.js';

/** Loads a checkpoint's adapter. */
export function loadCheckpointAdapter(dataDir: string, id: string, model: ModelConfig): LoraAdapter {
  const dir = checkpointDir(dataDir, id);
  if (!fs.existsSync(dir)) throw new Error(`checkpoint ${id} has no folder (${dir}); it was deleted or never finished`);
  return LoraAdapter.load(dir, model);
}
