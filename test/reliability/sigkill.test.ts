import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Model } from '../../main/engine/index.js';
import { loadCheckpointAdapter } from '../../main/rl/loadCheckpointAdapter.js';
import { Rng } from '../../main/util/random.js';
import { modelDir } from '../helpers/paths.js';
import { exited, startServe, type ServeProcess } from '../helpers/serveProcess.js';

/**
 * Issue 15, point 6: `clawloop serve` is killed (SIGKILL) at random moments while it streams,
 * trains, checkpoints, rolls back, pins, exports and changes settings. After every kill: the
 * database is intact, every turn and feedback the server acknowledged is there, every checkpoint
 * it listed is still listed and loads, the live adapter is the one that was live, and nothing
 * half-done (a checkpoint or an export) survives.
 */
const ROUNDS = Number(process.env.CLAWLOOP_KILL_ROUNDS ?? 20);
const SEED = Number(process.env.CLAWLOOP_KILL_SEED ?? 15);

interface Acknowledged {
  turns: string[];
  feedback: Map<string, { rating: string | null; hint: string | null }>;
  checkpoints: Set<string>;
  /** Backends a PUT /api/settings was sent (answered or not): settings.json must hold one of them, or none. */
  backends: Set<string | null>;
  /** Requests in flight when a kill came, by kind. */
  killedDuring: { export: number; settings: number };
}

/** Requests the workload has in flight now, by kind. */
const inFlight = { export: 0, settings: 0 };
async function counted<T>(kind: keyof typeof inFlight, f: () => Promise<T>): Promise<T> {
  inFlight[kind]++;
  try {
    return await f();
  } finally {
    inFlight[kind]--;
  }
}

const post = (origin: string, p: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${origin}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** The workload of a round: chats (streamed and not), feedback, and the app's actions, until the kill. */
async function workload(t: ServeProcess, rng: Rng, round: number, ack: Acknowledged, where: string): Promise<void> {
  for (let i = 0; ; i++) {
    const session = `kill-${round}-${i % 3}`;
    const stream = rng.uniform() < 0.5;
    const res = await post(
      t.url,
      '/chat/completions',
      { messages: [{ role: 'user', content: `round ${round} turn ${i}` }], max_tokens: 6, stream },
      {
        'x-session-id': session,
        'x-turn-type': 'main',
      },
    );
    const text = await res.text();
    const id = res.headers.get('x-clawloop-completion-id');
    if (res.status === 200 && id && (!stream || text.includes('data: [DONE]'))) ack.turns.push(id);
    if (id && res.status === 200) {
      const fb = { rating: rng.uniform() < 0.5 ? 'up' : 'down', hint: rng.uniform() < 0.5 ? `hint ${round}.${i}` : null };
      if ((await post(t.url, '/feedback', { completion_id: id, ...fb })).status === 200) ack.feedback.set(id, fb);
    }
    const list = (await (await fetch(`${t.origin}/api/checkpoints`)).json()) as { data: Array<{ id: string }> };
    for (const c of list.data) ack.checkpoints.add(c.id);
    await appAction(
      t,
      rng,
      list.data.map((c) => c.id),
      ack,
      where,
    );
  }
}

/** One of the app's actions, chosen at random: rollback, pin, export (plain, nested or under --export-dir, PEFT or GGUF) or a settings change. */
async function appAction(t: ServeProcess, rng: Rng, ids: string[], ack: Acknowledged, where: string): Promise<void> {
  const pick = ids.length ? ids[Math.floor(rng.uniform() * ids.length)] : 'base';
  const r = rng.uniform();
  if (r < 0.2) await post(t.origin, `/api/checkpoints/${r < 0.08 ? 'base' : pick}/rollback`, {});
  else if (r < 0.35 && ids.length) await post(t.origin, `/api/checkpoints/${pick}/pin`, { pinned: rng.uniform() < 0.5 });
  else if (r < 0.6 && ids.length) await exportOne(t, rng, pick, where);
  else if (r < 0.75)
    await fetch(`${t.origin}/api/training/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ learning_rate: 0.001 + rng.uniform() * 0.01 }),
    });
  else if (r < 0.9) await changeSettings(t, rng, ack);
}

/** PUT /api/settings with a backend chosen at random (recorded first: the kill may come before the answer). */
async function changeSettings(t: ServeProcess, rng: Rng, ack: Acknowledged): Promise<void> {
  const backend = rng.uniform() < 0.5 ? null : rng.uniform() < 0.5 ? 'wasm' : 'cpu';
  ack.backends.add(backend);
  await counted('settings', () =>
    fetch(`${t.origin}/api/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ backend }),
    }),
  );
}

let exportNo = 0;
/** An export of `id`: into exports/ by default, a nested folder there, or a nested folder under --export-dir; PEFT unless `only` says GGUF. */
async function exportOne(t: ServeProcess, rng: Rng, id: string, where: string, only?: 'gguf'): Promise<void> {
  const n = ++exportNo;
  const r = rng.uniform();
  const dir = r < 0.3 ? undefined : r < 0.65 ? `nested/e${n}/in` : path.join(where, `e${n}`, 'in');
  const format = only ?? 'peft';
  await counted('export', () => post(t.origin, `/api/checkpoints/${id}/export`, { dir, format }));
}

/** What the database said at the moment of the kill (read before restarting). */
function afterKill(dataDir: string): { integrity: string; live: string | null } {
  const db = new Database(path.join(dataDir, 'clawloop.db'));
  try {
    const integrity = db.pragma('integrity_check', { simple: true }) as string;
    const live = (db.prepare('SELECT live_checkpoint_id AS id FROM trainer_state WHERE id = 1').get() as { id: string | null }).id;
    return { integrity, live };
  } finally {
    db.close();
  }
}

describe(`SIGKILL at ${ROUNDS} random moments (seed ${SEED}): nothing acknowledged is lost, nothing half-done survives`, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-kill-'));
  const where = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-kill-export-dir-'));
  const model = modelDir('qwen3-qknorm');
  const ack: Acknowledged = {
    turns: [],
    feedback: new Map(),
    checkpoints: new Set(),
    backends: new Set([null]),
    killedDuring: { export: 0, settings: 0 },
  };
  const rng = new Rng(SEED);
  const args = [
    ...['--train-method', 'rl', '--batch-size', '1', '--keep-checkpoints', '1000', '--max-staleness', '2', '--feedback-wait', '0'],
    ...['--export-dir', where],
  ];
  after(() => [dataDir, where].forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  for (let round = 0; round < ROUNDS; round++) {
    it(`round ${round + 1}`, async () => {
      const t = await startServe(model, dataDir, args);
      const startedAt = Date.now();
      const killAfter = 200 + Math.floor(rng.uniform() * 2500);
      const work = workload(t, rng, round, ack, where).catch(() => {}); // the kill ends it
      // Every round works for killAfter ms at least; then one round in three is killed while a GGUF
      // export (nested, or under --export-dir) is written, one in three while the model settings are.
      const checkpoint = round % 3 === 2 ? await someCheckpoint(t) : null;
      await new Promise((r) => setTimeout(r, Math.max(0, startedAt + killAfter - Date.now())));
      if (checkpoint !== null) {
        void exportOne(t, rng, checkpoint, where, 'gguf').catch(() => {});
        await new Promise((r) => setTimeout(r, 30 + Math.floor(rng.uniform() * 600)));
      }
      if (round % 3 === 1) {
        void (async () => {
          for (;;) await changeSettings(t, rng, ack);
        })().catch(() => {});
        await new Promise((r) => setTimeout(r, 20 + Math.floor(rng.uniform() * 200)));
      }
      if (inFlight.export) ack.killedDuring.export++;
      if (inFlight.settings) ack.killedDuring.settings++;
      t.child.kill('SIGKILL');
      await exited(t.child);
      await work;
      const { integrity, live } = afterKill(dataDir);
      assert.equal(integrity, 'ok');
      checkSettings(dataDir, ack);
      await verify(dataDir, model, ack, live, args);
      checkExports([path.join(dataDir, 'exports'), where], dataDir);
    });
  }

  it('killed while doing real work', () => {
    const { export: exports, settings } = ack.killedDuring;
    console.log(
      `sigkill: ${ROUNDS} rounds (${exports} killed mid-export, ${settings} mid-settings), ${ack.turns.length} acknowledged turns, ${ack.feedback.size} feedbacks, ${ack.checkpoints.size} checkpoints, none lost`,
    );
    assert.ok(ack.turns.length >= ROUNDS, 'turns were completed between the kills');
    assert.ok(ack.checkpoints.size >= 2, 'steps wrote checkpoints between the kills');
    if (ROUNDS >= 6) assert.ok(exports >= 1, 'a kill came while an export was being written');
    if (ROUNDS >= 6) assert.ok(settings >= 1, 'a kill came while the settings were being written');
  });
});

/** A checkpoint the server lists, waiting (while the workload trains) up to two minutes; null if none came. */
async function someCheckpoint(t: ServeProcess): Promise<string | null> {
  for (const until = Date.now() + 120_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
    const list = (await (await fetch(`${t.origin}/api/checkpoints`)).json()) as { data: Array<{ id: string }> };
    if (list.data.length) return list.data[0].id;
  }
  return null;
}

/** settings.json, if there is one, is whole and holds a backend the workload sent (or none). */
function checkSettings(dataDir: string, ack: Acknowledged): void {
  const file = path.join(dataDir, 'settings.json');
  if (!fs.existsSync(file)) return;
  const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as { backend?: string | null };
  assert.ok(ack.backends.has(settings.backend ?? null), `settings.json holds backend ${settings.backend}, never sent`);
}

/**
 * After the restart, in exports/ and under --export-dir: no temporary, an empty journal, and every
 * export folder whole (a PEFT adapter, or one model.gguf).
 */
function checkExports(roots: string[], dataDir: string): void {
  const journal = path.join(dataDir, 'unfinished-exports');
  if (fs.existsSync(journal)) assert.deepEqual(fs.readdirSync(journal), [], 'the journal of unfinished exports is empty');
  for (const root of roots.filter((r) => fs.existsSync(r))) {
    const entries = fs.readdirSync(root, { recursive: true }) as string[];
    assert.deepEqual(
      entries.filter((e) => e.includes('.clawloop-tmp-')),
      [],
      'no half-written export',
    );
    const files = entries.filter((e) => fs.statSync(path.join(root, e)).isFile());
    const folders = new Set(files.map((f) => path.dirname(f)));
    for (const folder of folders) {
      const names = files
        .filter((f) => path.dirname(f) === folder)
        .map((f) => path.basename(f))
        .sort();
      assert.ok(
        JSON.stringify(names) === '["adapter_config.json","adapter_model.safetensors"]' || JSON.stringify(names) === '["model.gguf"]',
        `${path.join(root, folder)} holds ${names.join(', ')}`,
      );
    }
  }
}

/** Restarts on the data folder and checks everything the server acknowledged before the kill. */
async function verify(dataDir: string, model: string, ack: Acknowledged, live: string | null, args: string[]): Promise<void> {
  const t = await startServe(model, dataDir, [...args, '--train-method', 'off']);
  try {
    for (const id of ack.turns) assert.equal((await fetch(`${t.origin}/api/turns/${id}`)).status, 200, `turn ${id} lost`);
    for (const [id, fb] of ack.feedback) {
      const turn = (await (await fetch(`${t.origin}/api/turns/${id}`)).json()) as {
        feedback: { rating: string | null; hint: string | null } | null;
      };
      assert.deepEqual({ rating: turn.feedback?.rating, hint: turn.feedback?.hint }, fb, `feedback on ${id}`);
    }
    const list = (await (await fetch(`${t.origin}/api/checkpoints`)).json()) as {
      live_checkpoint: string | null;
      data: Array<{ id: string }>;
    };
    const listed = new Set(list.data.map((c) => c.id));
    for (const id of ack.checkpoints) assert.ok(listed.has(id), `checkpoint ${id} lost`);
    assert.equal(list.live_checkpoint, live, 'the live adapter after the restart is the one that was live');
    const m = await Model.load(model);
    try {
      for (const id of listed) loadCheckpointAdapter(dataDir, id, m.config).dispose();
    } finally {
      m.dispose();
    }
    const folders = fs.existsSync(path.join(dataDir, 'checkpoints')) ? fs.readdirSync(path.join(dataDir, 'checkpoints')) : [];
    assert.deepEqual(
      folders.filter((f) => !listed.has(f)),
      [],
      'no unfinished or unlisted checkpoint folder',
    );
  } finally {
    t.child.kill('SIGTERM');
    await exited(t.child);
  }
}
