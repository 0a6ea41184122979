import fs from 'node:fs';
import path from 'node:path';
import { atomicWriteFile } from '../util/atomicWrite.js';

/**
 * `<data dir>/clawloop.lock`: one ClawLoop per data folder. Two processes on one folder write the
 * same checkpoint folders and database rows (a restart that came up while the old process still
 * finished a step wrote `step-000005` twice and stopped training on a UNIQUE constraint).
 */
export interface LockInfo {
  pid: number;
  /** The port it serves on; null until the server listens. */
  port: number | null;
  started_at: number;
  /** When it began shutting down (ms since epoch); absent while it serves. Its port then takes no new requests. */
  stopping_since?: number;
}

export const LOCK_FILE = 'clawloop.lock';

/** Another live process holds the data folder. */
export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(
    readonly holder: LockInfo,
    dataDir: string,
  ) {
    super(
      holder.stopping_since
        ? `ClawLoop on this data folder is still shutting down (pid ${holder.pid}): ${dataDir}. ` +
            `Wait a few seconds and start again, or stop it with kill ${holder.pid}.`
        : `ClawLoop is already running on this data folder (pid ${holder.pid}, port ${holder.port ?? 'not listening yet'}): ${dataDir}. ` +
            `Use the running one, stop it first (Ctrl-C in its terminal, or kill ${holder.pid}), or start with another --data-dir.`,
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): LockInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(file, 'utf8')) as LockInfo;
    return Number.isInteger(info.pid) && info.pid > 0 ? info : null;
  } catch {
    return null;
  }
}

/** The lock a data folder's ClawLoop holds. Release it with {@link DataDirLock.release} (also done at process exit). */
export class DataDirLock {
  private released = false;
  private readonly onExit = () => this.release();

  private constructor(
    private readonly file: string,
    private info: LockInfo,
  ) {
    process.once('exit', this.onExit);
  }

  /**
   * Takes the data folder's lock. A lock whose process is gone (killed, crashed) is stale: it is
   * taken over and `log` says so. Throws {@link DataDirLockedError} while another live process holds it.
   */
  static acquire(dataDir: string, log: (line: string) => void = () => {}): DataDirLock {
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, LOCK_FILE);
    const info: LockInfo = { pid: process.pid, port: null, started_at: Date.now() };
    for (let attempt = 0; attempt < 3; attempt++) {
      if (createExclusive(file, info)) return new DataDirLock(file, info);
      const holder = readLock(file);
      if (holder && holder.pid !== process.pid && alive(holder.pid)) throw new DataDirLockedError(holder, dataDir);
      log(
        holder
          ? `clawloop: recovered the data folder's lock from pid ${holder.pid}, which is no longer running (it did not shut down cleanly)`
          : `clawloop: recovered an unreadable lock file ${file}`,
      );
      fs.rmSync(file, { force: true });
    }
    throw new Error(`could not take the lock ${file}: another process keeps creating it; is a second ClawLoop starting on this folder?`);
  }

  /** Records the port the server listens on, for the message a second start shows. */
  setPort(port: number): void {
    if (this.released) return;
    this.info = { ...this.info, port };
    atomicWriteFile(this.file, JSON.stringify(this.info) + '\n');
  }

  /** Says in the lock that this process is shutting down, so that a start meanwhile is told to wait, not to use it. */
  markStopping(): void {
    if (this.released) return;
    this.info = { ...this.info, stopping_since: Date.now() };
    atomicWriteFile(this.file, JSON.stringify(this.info) + '\n');
  }

  /** Removes the lock file if it is still this process's. Safe to call more than once. */
  release(): void {
    if (this.released) return;
    this.released = true;
    process.removeListener('exit', this.onExit);
    if (readLock(this.file)?.pid === this.info.pid) fs.rmSync(this.file, { force: true });
  }
}

/** Creates `file` holding `info` only if it does not exist: written aside, then hard-linked in (atomic, never torn). */
function createExclusive(file: string, info: LockInfo): boolean {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(info) + '\n');
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
    // A filesystem without hard links: exclusive create (a reader may briefly see it empty).
    try {
      fs.writeFileSync(file, JSON.stringify(info) + '\n', { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
