import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDirLock, DataDirLockedError, LOCK_FILE } from '../../main/cli/dataDirLock.js';
import { ROOT } from '../helpers/paths.js';
import { exited, startServe } from '../helpers/serveProcess.js';
import { longContextModel } from '../helpers/testServer.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-lock-'));
const writeLock = (dir: string, pid: number, port: number | null) =>
  fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid, port, started_at: Date.now() }));

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

describe('one ClawLoop per data folder (clawloop.lock)', () => {
  it('a live holder refuses a second start, naming its pid and port', async () => {
    const dir = tmp();
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      writeLock(dir, holder.pid!, 8123);
      assert.throws(
        () => DataDirLock.acquire(dir),
        (err: unknown) =>
          err instanceof DataDirLockedError &&
          err.message.startsWith(`ClawLoop is already running on this data folder (pid ${holder.pid}, port 8123)`),
      );
      assert.equal(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).pid, holder.pid, "the holder's lock is untouched");
    } finally {
      holder.kill('SIGKILL');
      await exited(holder);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a stale lock (its process is gone) is recovered and said so; release removes the lock', () => {
    const dir = tmp();
    const dead = deadPid();
    writeLock(dir, dead, 8123);
    const lines: string[] = [];
    const lock = DataDirLock.acquire(dir, (l) => lines.push(l));
    assert.match(lines.join('\n'), new RegExp(`recovered the data folder's lock from pid ${dead}, which is no longer running`));
    const held = JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'));
    assert.equal(held.pid, process.pid);
    assert.equal(held.port, null);
    lock.setPort(4242);
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).port, 4242);
    lock.release();
    assert.equal(fs.existsSync(path.join(dir, LOCK_FILE)), false);
    lock.release(); // twice is harmless
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("an unreadable lock file is recovered; release leaves another process's lock alone", () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, LOCK_FILE), '{"pid":');
    const lock = DataDirLock.acquire(dir);
    writeLock(dir, process.pid + 1_000_000, null); // someone took it over meanwhile
    lock.release();
    assert.equal(fs.existsSync(path.join(dir, LOCK_FILE)), true);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('clawloop serve: a second serve on the same folder exits 1 with the plain message; SIGTERM releases the lock', async () => {
    const dir = tmp();
    const model = longContextModel('llama-gqa', 2048);
    const first = await startServe(model, dir);
    const port = new URL(first.origin).port;
    const second = spawnSync(
      process.execPath,
      [path.join(ROOT, 'bin', 'clawloop.js'), 'serve', '--model', model, '--port', '0', '--data-dir', dir],
      {
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    assert.equal(second.status, 1, second.stderr);
    assert.match(second.stderr, new RegExp(`ClawLoop is already running on this data folder \\(pid ${first.child.pid}, port ${port}\\)`));
    first.child.kill('SIGTERM');
    assert.equal(await exited(first.child), 0);
    assert.equal(fs.existsSync(path.join(dir, LOCK_FILE)), false, 'the lock is released on exit');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
