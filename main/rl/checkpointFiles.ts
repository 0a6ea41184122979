import fs from 'node:fs';
import path from 'node:path';
import type { AdamW, LoraAdapter } from '../engine/index.js';
import { checkpointDir, checkpointsRoot } from '../store/checkpointPaths.js';
import { atomicWriteFile, fsyncDir } from '../util/atomicWrite.js';

/**
 * Checkpoint folders under `<data dir>/checkpoints/<id>/`: a PEFT adapter (adapter_config.json,
 * adapter_model.safetensors), the optimizer state (optimizer.safetensors) and checkpoint.json.
 *
 * A checkpoint is written into a temporary sibling folder, every file fsynced, then renamed into
 * place and the parent folder fsynced: a crash mid-save leaves either no checkpoint or a complete
 * one, never one that cannot be loaded. Leftover temporary folders are removed at start.
 */
export { CHECKPOINTS_DIR, checkpointDir, checkpointId, checkpointsRoot } from '../store/checkpointPaths.js';

export async function saveCheckpoint(
  dataDir: string,
  id: string,
  adapter: LoraAdapter,
  optimizer: AdamW,
  meta: Record<string, unknown>,
  baseModel: string,
): Promise<void> {
  const root = checkpointsRoot(dataDir);
  fs.mkdirSync(root, { recursive: true });
  const final = checkpointDir(dataDir, id);
  const tmp = path.join(root, `.tmp-${id}-${process.pid}-${Date.now()}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp);
  try {
    await adapter.save(tmp, { baseModel });
    await optimizer.save(path.join(tmp, 'optimizer.safetensors'));
    atomicWriteFile(path.join(tmp, 'checkpoint.json'), JSON.stringify(meta, null, 2) + '\n');
    fsyncDir(tmp);
    fs.rmSync(final, { recursive: true, force: true }); // a folder left by a step whose database commit never happened
    fs.renameSync(tmp, final);
    fsyncDir(root);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

export function optimizerFile(dataDir: string, id: string): string {
  return path.join(checkpointDir(dataDir, id), 'optimizer.safetensors');
}

/** Removes temporary folders of saves that never finished, and checkpoint folders no row in `known` lists. */
export function cleanupCheckpointTemp(dataDir: string, known: ReadonlySet<string>): number {
  const root = checkpointsRoot(dataDir);
  if (!fs.existsSync(root)) return 0;
  let n = 0;
  for (const name of fs.readdirSync(root)) {
    // Unfinished saves, and folders no row lists (retention deletes the row first, then the folder:
    // a kill in between leaves a folder nothing would remove).
    if (name.startsWith('.tmp-') || !known.has(name)) {
      fs.rmSync(path.join(root, name), { recursive: true, force: true });
      n++;
    }
  }
  return n;
}

export function deleteCheckpointDir(dataDir: string, id: string): void {
  fs.rmSync(checkpointDir(dataDir, id), { recursive: true, force: true });
}

/**
 * Writes a checkpoint's adapter as a PEFT adapter folder (adapter_config.json +
 * adapter_model.safetensors) that transformers/PEFT and vLLM load.
 */
export function exportCheckpoint(dataDir: string, id: string, outDir: string, baseModel?: string): string[] {
  const src = checkpointDir(dataDir, id);
  if (!fs.existsSync(src)) throw new Error(`checkpoint ${id} has no folder (${src})`);
  const out = path.resolve(outDir);
  if (fs.existsSync(out) && !fs.statSync(out).isDirectory()) throw new Error(`${out} exists and is not a folder`);
  fs.mkdirSync(out, { recursive: true });
  const cfg = JSON.parse(fs.readFileSync(path.join(src, 'adapter_config.json'), 'utf8'));
  if (baseModel !== undefined) cfg.base_model_name_or_path = baseModel;
  atomicWriteFile(path.join(out, 'adapter_config.json'), JSON.stringify(cfg, null, 2) + '\n');
  fs.copyFileSync(path.join(src, 'adapter_model.safetensors'), path.join(out, 'adapter_model.safetensors'));
  return ['adapter_config.json', 'adapter_model.safetensors'].map((f) => path.join(out, f));
}

/**
 * Checkpoints the retention policy removes: all but the newest `keep`, never pinned ones or those
 * in `spared` (the live one, and those the competence gate's reference may have to measure).
 */
export function checkpointsToDelete(
  all: Array<{ id: string; step: number; pinned: boolean }>,
  keep: number,
  spared: ReadonlyArray<string | null | undefined>,
): string[] {
  const unpinned = all.filter((c) => !c.pinned && !spared.includes(c.id)).sort((a, b) => b.step - a.step);
  const keepIds = new Set(
    all
      .filter((c) => !c.pinned)
      .sort((a, b) => b.step - a.step)
      .slice(0, keep)
      .map((c) => c.id),
  );
  return unpinned.filter((c) => !keepIds.has(c.id)).map((c) => c.id);
}
