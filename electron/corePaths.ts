/**
 * Where the desktop app's core keeps its data and whether one is already running there. Same rules
 * as the command line (main/cli/dataDir.ts and serverFile.ts), restated here so the main process
 * does not load the core's modules (SQLite and all).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** CLAWLOOP_HOME, else ~/.clawloop: the desktop app and `clawloop serve` share one data folder. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAWLOOP_HOME ? path.resolve(env.CLAWLOOP_HOME) : path.join(os.homedir(), '.clawloop');
}

/** The URL of a core already serving this data folder (a `clawloop serve` in a terminal), or null. */
export function runningCoreUrl(dir: string): string | null {
  try {
    const info = JSON.parse(fs.readFileSync(path.join(dir, 'server.json'), 'utf8')) as { pid: number; url: string };
    process.kill(info.pid, 0);
    return info.url.replace(/\/v1\/?$/, '');
  } catch {
    return null;
  }
}

/**
 * The key the core in `dir` checks, as `clawloop serve` picks it: CLAWLOOP_API_KEY, else the key set
 * in the app (settings.json), else the data folder's own (api-key, made on the core's first start).
 * The core makes the file before it serves, so once a core answers this finds its key.
 */
export function coreApiKey(dir: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.CLAWLOOP_API_KEY) return env.CLAWLOOP_API_KEY;
  try {
    const stored = (JSON.parse(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8')) as { api_key?: unknown }).api_key;
    if (typeof stored === 'string' && stored) return stored;
  } catch {
    // no settings yet
  }
  try {
    return fs.readFileSync(path.join(dir, 'api-key'), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
