import path from 'node:path';

/** Where checkpoints live in a data folder: `<data dir>/checkpoints/<id>/`. */
export const CHECKPOINTS_DIR = 'checkpoints';

/** Where exports go unless the user allowed another folder: `<data dir>/exports/`. */
export const EXPORTS_DIR = 'exports';

export function checkpointsRoot(dataDir: string): string {
  return path.join(dataDir, CHECKPOINTS_DIR);
}

export function checkpointDir(dataDir: string, id: string): string {
  if (!/^[A-Za-z0-9._-]+$/.test(id)) throw new Error(`invalid checkpoint id '${id}'`);
  return path.join(checkpointsRoot(dataDir), id);
}

/** `step-000012`: ids sort in step order. */
export function checkpointId(step: number): string {
  return `step-${String(step).padStart(6, '0')}`;
}
