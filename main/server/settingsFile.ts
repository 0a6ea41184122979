import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { BACKENDS } from '../protocol/app.js';
import { atomicWriteFile } from '../util/atomicWrite.js';

const StoredSettingsSchema = z.object({
  model_dir: z.string().nullable().default(null),
  backend: z.enum(BACKENDS).nullable().default(null),
  api_key: z.string().nullable().default(null),
});
export type StoredSettings = z.infer<typeof StoredSettingsSchema>;

export const SETTINGS_FILE = 'settings.json';

/**
 * `<data dir>/settings.json`: what the app chose (model folder, backend, API key) for the next
 * start. Readable by its owner only, since it may hold the API key. Flags on the command line win.
 */
export class SettingsFile {
  private value: StoredSettings;

  constructor(readonly dataDir: string) {
    this.value = SettingsFile.read(dataDir);
  }

  /** The stored settings; a missing or unreadable file reads as the defaults (and is reported by `problem`). */
  static read(dataDir: string): StoredSettings {
    const file = path.join(dataDir, SETTINGS_FILE);
    try {
      return StoredSettingsSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
    } catch {
      return StoredSettingsSchema.parse({});
    }
  }

  get(): StoredSettings {
    return { ...this.value };
  }

  update(patch: Partial<StoredSettings>): StoredSettings {
    const next = { ...this.value, ...patch };
    atomicWriteFile(path.join(this.dataDir, SETTINGS_FILE), JSON.stringify(next, null, 2) + '\n', 0o600);
    this.value = next;
    return this.get();
  }
}
