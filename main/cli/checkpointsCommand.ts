import fs from 'node:fs';
import path from 'node:path';
import { exportCheckpoint } from '../rl/checkpointFiles.js';
import { openDatabase } from '../store/database.js';
import { LearnStore } from '../store/learnStore.js';
import { parse, UsageError } from './args.js';
import { DB_FILE, resolveDataDir } from './dataDir.js';
import type { Io } from './io.js';
import { runningServer, type ServerFile } from './serverFile.js';

export const CHECKPOINTS_USAGE = `Usage: clawloop checkpoints list [--json]
       clawloop checkpoints rollback ID
       clawloop checkpoints export ID DIR
  [--data-dir DIR] [--api-key KEY]

  list       every checkpoint: step, adapter version, loss, samples, pinned, live
  rollback   make checkpoint ID (or "base", the untrained model) the live policy as a new adapter
             version; training continues from it. Talks to the running server when there is one
             (with --api-key or env CLAWLOOP_API_KEY), else changes the data folder for the next start.
  export     write checkpoint ID as a PEFT adapter folder (adapter_config.json + adapter_model.safetensors)

  --data-dir DIR   ClawLoop's data folder (default: env CLAWLOOP_HOME, else ~/.clawloop)`;

export async function checkpointsCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, {
    'data-dir': { type: 'string' },
    'api-key': { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  const [action, id, dir] = positionals;
  const dataDir = resolveDataDir(values['data-dir']);
  const file = path.join(dataDir, DB_FILE);
  if (!fs.existsSync(file)) throw new Error(`no ClawLoop database at ${file}; start \`clawloop serve\` first, or pass --data-dir`);

  if (action === 'rollback') {
    if (!id) throw new UsageError('rollback needs a checkpoint id (see `clawloop checkpoints list`), or "base"');
    const server = runningServer(dataDir);
    if (server) return rollbackOnServer(io, server, id, values['api-key'] ?? process.env.CLAWLOOP_API_KEY);
  }

  const db = openDatabase(file);
  try {
    const store = new LearnStore(db);
    switch (action) {
      case 'list':
        return listCheckpoints(io, store, values.json ?? false);
      case 'rollback':
        return rollbackOffline(io, store, id!);
      case 'export': {
        if (!id || !dir) throw new UsageError('export needs a checkpoint id and a folder: clawloop checkpoints export ID DIR');
        if (!store.checkpoint(id)) throw new Error(`no checkpoint '${id}'; see \`clawloop checkpoints list\``);
        const files = exportCheckpoint(dataDir, id, dir);
        io.out(`wrote ${files.join(', ')}\n`);
        return 0;
      }
      default:
        throw new UsageError(
          action ? `unknown action '${action}'; use list, rollback or export` : 'give an action: list, rollback or export',
        );
    }
  } finally {
    db.close();
  }
}

/** Asks the running server to roll back (it owns the trainer). */
async function rollbackOnServer(io: Io, server: ServerFile, id: string, key: string | undefined): Promise<number> {
  const res = await fetch(`${new URL(server.url).origin}/api/checkpoints/${encodeURIComponent(id)}/rollback`, {
    method: 'POST',
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  const body = (await res.json()) as { adapter_version?: number; error?: { message: string } };
  if (!res.ok) throw new Error(`the server (pid ${server.pid}) refused: ${body.error?.message ?? res.status}`);
  io.out(`rolled back to ${id}: adapter version ${body.adapter_version} is live (server pid ${server.pid})\n`);
  return 0;
}

/** No server runs: the rollback is recorded in the data folder and takes effect at the next start. */
function rollbackOffline(io: Io, store: LearnStore, id: string): number {
  const target = id === 'base' ? null : id;
  if (target && !store.checkpoint(target)) throw new Error(`no checkpoint '${id}'; see \`clawloop checkpoints list\``);
  const version = store.maxVersion() + 1;
  store.recordRollback(target, version, Date.now());
  io.out(`rolled back to ${id}: adapter version ${version} will be live when \`clawloop serve\` starts\n`);
  return 0;
}

function listCheckpoints(io: Io, store: LearnStore, json: boolean): number {
  const live = store.trainerState().liveCheckpointId;
  const rows = store.checkpoints();
  if (json) {
    const out = rows.map((c) => ({
      id: c.id,
      step: c.step,
      adapter_version: c.adapterVersion,
      created_at: c.createdAt,
      metrics: c.metrics,
      samples: c.samples,
      pinned: c.pinned,
      live: c.id === live,
    }));
    io.out(JSON.stringify(out) + '\n');
    return 0;
  }
  if (!rows.length) {
    io.out(`no checkpoints yet (the live policy is ${live ?? 'the base model'})\n`);
    return 0;
  }
  io.out(
    `${'id'.padEnd(13)} ${'step'.padStart(5)} ${'version'.padStart(7)}  ${'created'.padEnd(19)} ${'loss'.padStart(9)} ${'samples'.padStart(7)}  flags\n`,
  );
  for (const c of rows) {
    const when = new Date(c.createdAt).toISOString().slice(0, 19).replace('T', ' ');
    const flags = [c.id === live ? 'live' : '', c.pinned ? 'pinned' : ''].filter(Boolean).join(',');
    io.out(
      `${c.id.padEnd(13)} ${String(c.step).padStart(5)} ${String(c.adapterVersion).padStart(7)}  ${when} ${c.metrics.loss.toFixed(4).padStart(9)} ${String(c.samples.total).padStart(7)}  ${flags}\n`,
    );
  }
  return 0;
}
