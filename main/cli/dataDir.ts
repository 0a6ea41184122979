import os from 'node:os';
import path from 'node:path';

/** Where ClawLoop keeps its data: --data-dir, else CLAWLOOP_HOME, else ~/.clawloop. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return path.resolve(flag);
  if (env.CLAWLOOP_HOME) return path.resolve(env.CLAWLOOP_HOME);
  return path.join(os.homedir(), '.clawloop');
}

export { DB_FILE } from '../store/database.js';
