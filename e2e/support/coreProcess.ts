/**
 * A real `clawloop serve` for the end-to-end tests: the bundled model, a temporary data folder,
 * a free port, training steps of two samples (two rated answers make a step). It can be killed and
 * started again on the same port and folder, like a core that crashed and came back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CoreOptions {
  /** Extra `clawloop serve` flags. */
  args?: string[];
  /** Samples per training step (default 2: a step follows the second rated answer). */
  batchSize?: number;
  /** Reuse a data folder (default: a new temporary one). */
  dataDir?: string;
  port?: number;
}

export class CoreProcess {
  private child: ChildProcess | null = null;
  private output = '';
  port = 0;
  /** http://127.0.0.1:PORT */
  origin = '';
  /** The URL `clawloop serve` printed for the app: a one-time sign-in link when it has a key. */
  appUrl = '';

  /** The core's API key (the data folder's own, made on first start), or null with --no-auth. */
  get key(): string | null {
    try {
      return fs.readFileSync(path.join(this.dataDir, 'api-key'), 'utf8').trim() || null;
    } catch {
      return null;
    }
  }

  /** Headers that carry the key, for calls to the core's API from the test itself. */
  authHeaders(): Record<string, string> {
    const key = this.key;
    return key ? { authorization: `Bearer ${key}` } : {};
  }

  private constructor(
    readonly dataDir: string,
    private readonly args: string[],
    private readonly ownsDataDir: boolean,
  ) {}

  static async start(o: CoreOptions = {}): Promise<CoreProcess> {
    const dataDir = o.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-e2e-'));
    const core = new CoreProcess(dataDir, ['--batch-size', String(o.batchSize ?? 2), ...(o.args ?? [])], !o.dataDir);
    await core.launch(o.port ?? 0);
    return core;
  }

  /** What the core printed so far (for failure messages). */
  get log(): string {
    return this.output;
  }

  private async launch(port: number): Promise<void> {
    const args = [
      'bin/clawloop.js',
      'serve',
      '--port',
      String(port),
      '--data-dir',
      this.dataDir,
      '--session-idle-minutes',
      '0',
      ...this.args,
    ];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CLAWLOOP_THREADS: '1' },
    });
    this.child = child;
    this.output = '';
    child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    const served = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`clawloop serve did not start in 120 s:\n${this.output}`)), 120_000);
      const check = () => {
        // `serving <model> at http://…/v1`, then `the app: http://…/api/sign-in/<token>` (or `…/` without a key).
        const served = /serving \S+ at (http:\/\/[^\s/]+)\/v1/.exec(this.output);
        const app = /the app: (http:\/\/\S+)/.exec(this.output);
        if (served && app) {
          clearTimeout(timer);
          this.appUrl = app[1];
          resolve(served[1]);
        }
      };
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`clawloop serve exited with ${code}:\n${this.output}`));
      });
    });
    this.origin = served;
    this.port = Number(new URL(served).port);
  }

  /** SIGKILL: no shutdown at all, as in a crash. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  /**
   * Ctrl-C without waiting: the core announces its shutdown, finishes a training step under way,
   * then exits (`exited()` resolves then). A second call is a second Ctrl-C.
   */
  interrupt(): void {
    this.child?.kill('SIGINT');
  }

  /** Resolves once the core's process has exited (at once when none runs). */
  async exited(): Promise<void> {
    const c = this.child;
    if (c && c.exitCode === null && c.signalCode === null) await new Promise<void>((resolve) => c.once('exit', () => resolve()));
    this.child = null;
  }

  /** SIGTERM: the core finishes what is in flight and closes the database. */
  async stop(): Promise<void> {
    await this.signal('SIGTERM');
    if (this.ownsDataDir) fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** Starts again on the same port and data folder. */
  async restart(): Promise<void> {
    await this.launch(this.port);
  }

  private async signal(sig: NodeJS.Signals): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill(sig);
    });
    this.child = null;
  }
}
