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
}

const post = (origin: string, p: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${origin}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** The workload of a round: chats (streamed and not), feedback, and the app's actions, until the kill. */
async function workload(t: ServeProcess, rng: Rng, round: number, ack: Acknowledged): Promise<void> {
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
    );
  }
}

/** One of the app's actions, chosen at random: rollback, pin, export or a settings change. */
async function appAction(t: ServeProcess, rng: Rng, ids: string[]): Promise<void> {
  const pick = ids.length ? ids[Math.floor(rng.uniform() * ids.length)] : 'base';
  const r = rng.uniform();
  if (r < 0.25) await post(t.origin, `/api/checkpoints/${r < 0.1 ? 'base' : pick}/rollback`, {});
  else if (r < 0.45 && ids.length) await post(t.origin, `/api/checkpoints/${pick}/pin`, { pinned: rng.uniform() < 0.5 });
  else if (r < 0.65 && ids.length) await post(t.origin, `/api/checkpoints/${pick}/export`, {});
  else if (r < 0.85)
    await fetch(`${t.origin}/api/training/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ learning_rate: 0.001 + rng.uniform() * 0.01 }),
    });
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
  const model = modelDir('qwen3-qknorm');
  const ack: Acknowledged = { turns: [], feedback: new Map(), checkpoints: new Set() };
  const rng = new Rng(SEED);
  const args = ['--train-method', 'rl', '--batch-size', '1', '--keep-checkpoints', '1000', '--max-staleness', '2', '--feedback-wait', '0'];
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  for (let round = 0; round < ROUNDS; round++) {
    it(`round ${round + 1}`, async () => {
      const t = await startServe(model, dataDir, args);
      const killAfter = 200 + Math.floor(rng.uniform() * 2500);
      const work = workload(t, rng, round, ack).catch(() => {}); // the kill ends it
      await new Promise((r) => setTimeout(r, killAfter));
      t.child.kill('SIGKILL');
      await exited(t.child);
      await work;
      const { integrity, live } = afterKill(dataDir);
      assert.equal(integrity, 'ok');
      await verify(dataDir, model, ack, live, args);
    });
  }

  it('killed while doing real work', () => {
    console.log(`sigkill: ${ROUNDS} rounds, ${ack.turns.length} acknowledged turns, ${ack.feedback.size} feedbacks, ${ack.checkpoints.size} checkpoints, none lost`);
    assert.ok(ack.turns.length >= ROUNDS, 'turns were completed between the kills');
    assert.ok(ack.checkpoints.size >= 2, 'steps wrote checkpoints between the kills');
  });
});

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
    const exports = fs.existsSync(path.join(dataDir, 'exports')) ? fs.readdirSync(path.join(dataDir, 'exports')) : [];
    assert.deepEqual(
      exports.filter((f) => f.includes('.tmp-')),
      [],
      'no half-written export',
    );
    for (const e of exports)
      assert.deepEqual(fs.readdirSync(path.join(dataDir, 'exports', e)).sort(), ['adapter_config.json', 'adapter_model.safetensors']);
  } finally {
    t.child.kill('SIGTERM');
    await exited(t.child);
  }
}
