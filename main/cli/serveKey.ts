import fs from 'node:fs';
import path from 'node:path';
import { apiKeyProblem } from '../protocol/app.js';
import { API_KEY_FILE, loadOrCreateApiKey } from '../server/apiKeyFile.js';
import { keylessCorsProblem } from '../server/requestGuards.js';
import { UsageError } from './args.js';
import type { Io } from './io.js';

/** The flags and stored settings that decide the key of `clawloop serve`. */
export interface KeySources {
  'api-key'?: string;
  'api-key-file'?: string;
  'no-auth'?: boolean;
  'judge-api-key'?: string;
}

/**
 * The key given for this start, checked as the settings route checks one (visible ASCII, 8 to 200
 * characters: a key no client can send would lock every client out), or null when none was given:
 * --api-key (seen by every user of the machine through `ps`: warned about), --api-key-file FILE,
 * env CLAWLOOP_API_KEY, then the key set in the app.
 */
export function givenApiKey(values: KeySources, storedKey: string | null, io: Io, env: NodeJS.ProcessEnv = process.env): string | null {
  if (values['api-key'] !== undefined && values['api-key-file'] !== undefined) {
    throw new UsageError('give either --api-key or --api-key-file, not both');
  }
  if (values['api-key'] !== undefined) {
    io.log(
      'clawloop: warning: --api-key is visible to every user of this machine (ps shows command lines): use --api-key-file FILE or env CLAWLOOP_API_KEY instead',
    );
    return checked(values['api-key'], '--api-key');
  }
  if (values['judge-api-key'] !== undefined) {
    io.log('clawloop: warning: --judge-api-key is visible to every user of this machine (ps): use env CLAWLOOP_JUDGE_API_KEY instead');
  }
  const file = values['api-key-file'];
  if (file !== undefined) return checked(readKeyFile(file), `--api-key-file ${file}`);
  if (env.CLAWLOOP_API_KEY) return checked(env.CLAWLOOP_API_KEY, 'CLAWLOOP_API_KEY');
  return storedKey || null;
}

function readKeyFile(file: string): string {
  try {
    return fs.readFileSync(path.resolve(file), 'utf8').trim();
  } catch (err) {
    throw new UsageError(`--api-key-file: cannot read ${file}: ${(err as Error).message}`);
  }
}

function checked(key: string, where: string): string {
  const problem = apiKeyProblem(key);
  if (problem) throw new UsageError(`${where}: ${problem}`);
  return key;
}

/**
 * The API key in force: the one given (givenApiKey), else the data folder's own (made on first
 * start); none with --no-auth, which is said loudly. A key-less core that lets every web page in
 * (--cors '*' or 'null') is refused.
 */
export function accessKey(
  values: KeySources,
  given: string | null,
  corsOrigins: readonly string[],
  dataDir: string,
  io: Io,
): string | null {
  if (!values['no-auth']) {
    if (given) return given;
    const { key, created } = loadOrCreateApiKey(dataDir);
    if (created) io.log(`clawloop: made an API key for this data folder: ${path.join(dataDir, API_KEY_FILE)} (readable by you alone)`);
    return key;
  }
  if (values['api-key'] !== undefined || values['api-key-file'] !== undefined) {
    throw new UsageError('--no-auth and --api-key contradict each other: choose one');
  }
  const problem = keylessCorsProblem(corsOrigins);
  if (problem) throw new UsageError(problem.replace('without an API key', 'with --no-auth'));
  io.log(
    'clawloop: warning: --no-auth: any user or program on this machine can read your conversations, change the model folder and the judge',
  );
  return null;
}
