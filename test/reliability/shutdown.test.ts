/**
 * Shutdown says what it does (issue 42, walk findings 6 and 7): once it begins, new requests are
 * refused with the reason and every open app hears a `server.stopping` event; a second signal stops
 * training at once; a start meanwhile is told the truth (still shutting down, not "use it").
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { DataDirLock, DataDirLockedError, LOCK_FILE, type LockInfo } from '../../main/cli/dataDirLock.js';
import { exited } from '../helpers/serveProcess.js';
import { shutdown } from '../../main/server/launch.js';
import type { TrainingStatus } from '../../main/protocol/training.js';
import { postJson, readFrames, startTestServer } from '../helpers/testServer.js';

describe('shutdown', () => {
  it('after beginShutdown: a server.stopping event, writes refused with the reason (503 shutting_down), reads answered', async () => {
    const t = await startTestServer();
    try {
      const stream = await fetch(`${t.origin}/api/events?since=0`);
      const reader = stream.body!.getReader();
      t.server.beginShutdown(5, 'ClawLoop is shutting down: finishing training step 5');
      let text = '';
      for (let i = 0; i < 20 && !text.includes('event: server.stopping'); i++) text += (await readFrames(reader, 1)).text;
      assert.match(text, /event: server\.stopping\n/);
      assert.match(text, /"step":5,"message":"ClawLoop is shutting down: finishing training step 5"/);
      await reader.cancel();

      const chat = await postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
      assert.equal(chat.status, 503);
      const body = (await chat.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'shutting_down');
      assert.equal(
        body.error.message,
        'ClawLoop is shutting down: finishing training step 5. It takes no new requests until it is started again.',
      );
      const feedback = await postJson(`${t.url}/feedback`, { completion_id: 'chatcmpl-x', rating: 'up' });
      assert.equal(feedback.status, 503, 'feedback is refused too: it could not train before the next start anyway');
      const health = (await (await fetch(`${t.origin}/healthz`)).json()) as { status: string };
      assert.equal(health.status, 'shutting_down');
      assert.equal((await fetch(`${t.origin}/api/info`)).status, 200, 'reads still answer, so the app can show why');
    } finally {
      await t.close();
    }
  });

  it('a second signal terminates the trainer mid-step; the close under way then completes', async () => {
    const lines: string[] = [];
    const calls: string[] = [];
    let endStep = () => {};
    const trainer = {
      status: { state: 'training', step: 6 } as TrainingStatus,
      // A step that would take a minute: stop() waits for it.
      stop: () => new Promise<void>((r) => (endStep = r)),
      terminate: async () => {
        calls.push('terminate');
        endStep();
      },
    };
    const server = {
      beginShutdown: (step: number | null, message: string) => calls.push(`begin ${step} ${message}`),
      close: async (o?: { abort?: boolean }) => void calls.push(`close ${o?.abort === true}`),
    };
    const s = shutdown(server, trainer, { close: () => void calls.push('db') }, (l) => lines.push(l));
    const closed = s.close();
    const early = await Promise.race([closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('waiting'), 50))]);
    assert.equal(early, 'waiting', 'the first signal waits for the step');
    assert.deepEqual(calls, ['begin 7 ClawLoop is shutting down: finishing training step 7']);
    assert.match(lines.join('\n'), /finishing training step 7 before closing the port.*Ctrl-C again stops at once/);
    await s.abort();
    await closed;
    assert.ok(calls.includes('terminate'), 'the trainer worker is terminated');
    assert.equal(calls.at(-1), 'db', 'the database closes last');
    assert.match(lines.join('\n'), /stopping training step 7 at once; it is not recorded/);
  });

  it('a start while the holder shuts down is told to wait or kill it, not to use it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-stopping-'));
    const lock = DataDirLock.acquire(dir);
    lock.setPort(4242);
    lock.markStopping();
    const held = JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')) as LockInfo;
    assert.equal(typeof held.stopping_since, 'number');
    lock.release();
    // Another live process holds it, as the first one wrote it while shutting down.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ ...held, pid: holder.pid }));
      assert.throws(
        () => DataDirLock.acquire(dir),
        (err: unknown) =>
          err instanceof DataDirLockedError &&
          err.message ===
            `ClawLoop on this data folder is still shutting down (pid ${holder.pid}): ${dir}. Wait a few seconds and start again, or stop it with kill ${holder.pid}.`,
      );
    } finally {
      holder.kill('SIGKILL');
      await exited(holder);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
