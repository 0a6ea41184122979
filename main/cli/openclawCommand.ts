import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InfoSchema, type Info } from '../protocol/app.js';
import { readApiKey } from '../server/apiKeyFile.js';
import { SettingsFile } from '../server/settingsFile.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { parse, UsageError } from './args.js';
import { describeChanges, mergeConfig, type Json } from './configMerge.js';
import { resolveDataDir } from './dataDir.js';
import type { Io } from './io.js';
import { runningServer } from './serverFile.js';

export const OPENCLAW_USAGE = `Usage: clawloop openclaw [options]

Points OpenClaw at the running ClawLoop: merges the provider entry it serves (the model, its real
context window, session headers, and for a small model OpenClaw's lean-prompt settings) into
OpenClaw's config file, after saving a backup beside it, and prints what changed. OpenClaw uses the
changed file at once.

  --config FILE     OpenClaw's config (default: env OPENCLAW_CONFIG_PATH, else ~/.openclaw/openclaw.json)
  --url URL         the ClawLoop server (default: the one running on the data folder)
  --data-dir DIR    the data folder (default: env CLAWLOOP_HOME, else ~/.clawloop)
  --api-key KEY     the server's API key (default: env CLAWLOOP_API_KEY, else the data folder's)
  --dry-run         show what would change, write nothing
  --print           print the entry and write nothing`;

const FLAGS = {
  config: { type: 'string' },
  url: { type: 'string' },
  'data-dir': { type: 'string' },
  'api-key': { type: 'string' },
  'dry-run': { type: 'boolean' },
  print: { type: 'boolean' },
} as const;

/** OpenClaw's config file, as OpenClaw finds it. */
function configPath(flag: string | undefined): string {
  if (flag) return path.resolve(flag);
  if (process.env.OPENCLAW_CONFIG_PATH) return path.resolve(process.env.OPENCLAW_CONFIG_PATH);
  return path.join(os.homedir(), '.openclaw', 'openclaw.json');
}

/** The server's origin: --url, else the server running on the data folder. */
function serverOrigin(url: string | undefined, dataDir: string): string {
  const raw = url ?? runningServer(dataDir)?.url;
  if (!raw) {
    throw new Error(`no ClawLoop is running on ${dataDir}: start it with \`clawloop serve\` (or name it with --url http://HOST:PORT)`);
  }
  try {
    return new URL(raw).origin;
  } catch {
    throw new UsageError(`--url is '${raw}'; expected an address such as http://127.0.0.1:30000`);
  }
}

async function fetchInfo(origin: string, apiKey: string | null): Promise<Info> {
  let res: Response;
  try {
    res = await fetch(`${origin}/api/info`, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });
  } catch (err) {
    throw new Error(`could not reach ClawLoop at ${origin}: ${(err as Error).message}`);
  }
  if (res.status === 401) throw new Error(`ClawLoop at ${origin} wants an API key: pass --api-key KEY (or set CLAWLOOP_API_KEY)`);
  if (!res.ok) throw new Error(`ClawLoop at ${origin} answered ${res.status} to GET /api/info: ${(await res.text()).slice(0, 300)}`);
  return InfoSchema.parse(await res.json());
}

/** The config file's object; a missing file is an empty config. */
function readConfig(file: string): { [key: string]: Json } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`could not read ${file}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = text.trim() ? JSON.parse(text) : {};
  } catch (err) {
    throw new Error(
      `${file} is not plain JSON (${(err as Error).message}); OpenClaw also reads JSON5 (comments, trailing commas), ` +
        'which this command does not rewrite: merge the entry that `clawloop openclaw --print` prints by hand',
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${file} holds ${JSON.stringify(value).slice(0, 40)}, not a JSON object`);
  return value as { [key: string]: Json };
}

/** `openclaw.json.bak-20261127-145203` beside the file. */
function backupName(file: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${file}.bak-${stamp}`;
}

/** The entry the server serves, with the key this command was given (a server may leave its key out of /api/info). */
async function servedEntry(values: ReturnType<typeof parse<typeof FLAGS>>['values']): Promise<{ [key: string]: Json }> {
  const dataDir = resolveDataDir(values['data-dir']);
  const apiKey = values['api-key'] ?? process.env.CLAWLOOP_API_KEY ?? SettingsFile.read(dataDir).api_key ?? readApiKey(dataDir);
  const info = await fetchInfo(serverOrigin(values.url, dataDir), apiKey);
  if (info.openclaw_note) throw new Error(`OpenClaw cannot use this model: ${info.openclaw_note}`);
  const entry = structuredClone(info.openclaw_provider) as { [key: string]: Json };
  const provider = (entry.models as { providers?: { clawloop?: { apiKey?: Json } } } | undefined)?.providers?.clawloop;
  if (provider && apiKey) provider.apiKey = apiKey;
  return entry;
}

export async function openclawCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, FLAGS);
  const entry = await servedEntry(values);
  if (values.print) {
    io.out(JSON.stringify(entry, null, 2) + '\n');
    return 0;
  }
  const file = configPath(values.config);
  const { merged, changes } = mergeConfig(readConfig(file), entry);
  if (!changes.length) {
    io.log(`clawloop: ${file} already points OpenClaw at this ClawLoop; nothing changed`);
    return 0;
  }
  io.out(describeChanges(changes).join('\n') + '\n');
  if (values['dry-run']) {
    io.log(`clawloop: ${changes.length} change(s) to ${file} shown; nothing written (--dry-run)`);
    return 0;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const backup = fs.existsSync(file) ? backupName(file) : null;
  if (backup) fs.copyFileSync(file, backup);
  atomicWriteFile(file, JSON.stringify(merged, null, 2) + '\n');
  fs.chmodSync(file, 0o600);
  io.log(`clawloop: wrote ${changes.length} change(s) to ${file}${backup ? ` (the previous file is ${backup})` : ''}`);
  return 0;
}
