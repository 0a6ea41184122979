import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The file in the data folder that holds the API key made on first start (owner-only, 0600). */
export const API_KEY_FILE = 'api-key';

/** A new random key: `clk-` and 32 hex digits (128 bits). */
export function newApiKey(): string {
  return `clk-${crypto.randomBytes(16).toString('hex')}`;
}

/** The key in `<dataDir>/api-key`, or null when there is none (or it is empty). */
export function readApiKey(dataDir: string): string | null {
  try {
    return fs.readFileSync(path.join(dataDir, API_KEY_FILE), 'utf8').trim() || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * The data folder's API key, made (random, mode 0600) on first use, as Jupyter makes its token:
 * secure by default for other users of the machine. `created` says whether it was made now.
 */
export function loadOrCreateApiKey(dataDir: string): { key: string; created: boolean } {
  const file = path.join(dataDir, API_KEY_FILE);
  const existing = readApiKey(dataDir);
  if (existing) {
    fs.chmodSync(file, 0o600);
    return { key: existing, created: false };
  }
  const key = newApiKey();
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    // 'wx': two cores starting at once on one folder cannot both make a key.
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const theirs = readApiKey(dataDir);
    if (theirs) return { key: theirs, created: false };
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600 }); // the file was there but empty
    fs.chmodSync(file, 0o600);
  }
  return { key, created: true };
}
