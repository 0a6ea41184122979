/**
 * A second Ctrl-C stops training at once (issue 42, walk finding 7): before, the port closed but
 * the step went on silently for ~30 s, and a restart meanwhile was refused. Now the trainer worker
 * is terminated, the lock released, and the cut step is simply not recorded: a restart finds no
 * step and queues its samples again.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LOCK_FILE } from '../../main/cli/dataDirLock.js';
import { ROOT } from '../helpers/paths.js';
import { exited, startServe, type ServeProcess } from '../helpers/serveProcess.js';
import { postJson, waitFor } from '../helpers/testServer.js';

const MODEL = path.join(ROOT, 'resources', 'models', 'clawloop-mini');

async function status(s: ServeProcess): Promise<{ state: string; step: number }> {
  return (await (await fetch(`${s.origin}/api/training/status`)).json()) as { state: string; step: number };
}

/** Two rated answers: a step on a core with --batch-size 2. */
async function rateTwo(s: ServeProcess): Promise<void> {
  for (const content of ['How many minutes are in 3 hours?', 'Convert 2 km to meters.']) {
    const headers = { 'x-session-id': `s-${content.length}`, 'x-turn-type': 'main' };
    const r = await postJson(`${s.url}/chat/completions`, { messages: [{ role: 'user', content }], max_tokens: 24 }, headers);
    const { id } = (await r.json()) as { id: string };
    assert.equal((await postJson(`${s.url}/feedback`, { completion_id: id, rating: 'up' })).status, 200);
  }
}

describe('a second Ctrl-C mid-step', () => {
  it('terminates the trainer, releases the lock and exits; the step is not recorded and its samples are queued again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-double-int-'));
    const flags = ['--batch-size', '2', '--feedback-wait', '0'];
    const first = await startServe(MODEL, dir, flags);
    // The gate would keep the state 'training' after the step is saved: off, 'training' is the step itself.
    const put = await fetch(`${first.origin}/api/training/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ competence_gate: false, policy_rollouts: 0 }),
    });
    assert.equal(put.status, 200, await put.text());
    await rateTwo(first);
    await waitFor(async () => (await status(first)).state === 'training', 'a training step', 120_000);

    first.child.kill('SIGINT');
    await waitFor(() => /finishing training step 1 before closing the port/.test(first.stderr()), 'the first signal said');
    first.child.kill('SIGINT');
    assert.equal(await exited(first.child), 0, first.stderr());
    assert.match(first.stderr(), /stopping training step 1 at once; it is not recorded/);
    assert.equal(fs.existsSync(path.join(dir, LOCK_FILE)), false, 'the lock is released before exit');

    const second = await startServe(MODEL, dir, flags);
    try {
      assert.equal((await status(second)).step, 0, 'the cut step was not recorded');
      assert.match(second.stderr(), /requeued 2 sample\(s\) of a step that did not finish/);
      const checkpoints = path.join(dir, 'checkpoints');
      const saved = fs.existsSync(checkpoints) ? fs.readdirSync(checkpoints).filter((n) => !n.startsWith('.')) : [];
      assert.deepEqual(saved, [], 'no checkpoint folder of the cut step');
    } finally {
      second.child.kill('SIGTERM');
      await exited(second.child);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
