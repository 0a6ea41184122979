import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository's `resources/` folder, from sources (main/) or compiled code (dist/main/), and in
 * a packaged app from outside the asar archive (resources are unpacked there).
 */
export function resourcesDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const up of ['..', '../..']) {
    const p = path.resolve(here, up, 'resources');
    if (fs.existsSync(p)) return p.replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`);
  }
  return path.resolve(here, '..', 'resources');
}

/** A path inside `resources/`. */
export function resourcePath(...parts: string[]): string {
  return path.join(resourcesDir(), ...parts);
}

/** The folder name of the model ClawLoop ships and serves when no --model is given. */
export const DEFAULT_MODEL = 'clawloop-mini';

/** Where the default model lives. */
export function defaultModelDir(): string {
  return resourcePath('models', DEFAULT_MODEL);
}

/** The built app (web mode): `dist/renderer/` of this installation, or null when it was not built. */
export function appDir(): string | null {
  const dir = path.resolve(resourcesDir(), '..', 'dist', 'renderer');
  return fs.existsSync(path.join(dir, 'index.html')) ? dir : null;
}
