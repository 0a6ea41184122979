/**
 * Where the Electron binary is, if one is installed (the `electron` npm package's index returns
 * its path; it throws when the binary was never downloaded, as on machines without GitHub access).
 */
import { createRequire } from 'node:module';

export function electronBinary(): string | null {
  try {
    const p = createRequire(import.meta.url)('electron') as unknown;
    return typeof p === 'string' ? p : null;
  } catch {
    return null;
  }
}
