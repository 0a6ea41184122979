/**
 * The core the desktop app runs: `clawloop serve` in an Electron utility process (never in the
 * window's process), on 127.0.0.1, waited for until /healthz answers. Quitting sends SIGTERM and
 * waits: the core finishes the requests in flight and closes its database, so no turn is lost and
 * no checkpoint half-written; after a grace period a second SIGTERM stops a training step still
 * running (it is not recorded; its samples train after the next start) and aborts requests.
 */
import net from 'node:net';
import { utilityProcess, type UtilityProcess } from 'electron';

export interface DesktopCoreOptions {
  /** bin/clawloop.js inside the app. */
  entry: string;
  dataDir: string;
  /** Preferred port (30000, so OpenClaw's settings keep working); another free one when taken. */
  port?: number;
  /** Extra `clawloop serve` flags (CLAWLOOP_SERVE_ARGS, for tests and power users). */
  extraArgs?: string[];
  log: (line: string) => void;
}

/** How long a starting core may take to load its model before the app gives up (ms). */
const START_TIMEOUT_MS = 300_000;
/** How long requests in flight may finish before they are aborted on quit (ms). */
const STOP_GRACE_MS = 30_000;
/** After the abort, how long closing the database may take before the process is left behind (ms). */
const STOP_HARD_MS = 30_000;

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export class DesktopCore {
  private exited: Promise<number>;

  private constructor(
    private readonly proc: UtilityProcess,
    readonly origin: string,
    private readonly log: (line: string) => void,
  ) {
    this.exited = new Promise((resolve) => proc.once('exit', resolve));
  }

  static async start(o: DesktopCoreOptions): Promise<DesktopCore> {
    const preferred = o.port ?? 30000;
    const port = (await portFree(preferred)) ? preferred : await freePort();
    const args = ['serve', '--host', '127.0.0.1', '--port', String(port), '--data-dir', o.dataDir, ...(o.extraArgs ?? [])];
    o.log(`clawloop desktop: starting the core: clawloop ${args.join(' ')}`);
    const proc = utilityProcess.fork(o.entry, args, { stdio: 'pipe', serviceName: 'ClawLoop core' });
    proc.stdout?.on('data', (d: Buffer) => o.log(d.toString().trimEnd()));
    proc.stderr?.on('data', (d: Buffer) => o.log(d.toString().trimEnd()));
    const core = new DesktopCore(proc, `http://127.0.0.1:${port}`, o.log);
    await core.waitHealthy();
    return core;
  }

  private async waitHealthy(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    let exitCode: number | null = null;
    void this.exited.then((c) => (exitCode = c));
    while (Date.now() < deadline) {
      if (exitCode !== null) throw new Error(`the core exited with code ${exitCode} while starting (see the log above)`);
      try {
        const res = await fetch(`${this.origin}/healthz`);
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    this.proc.kill();
    throw new Error(`the core did not answer ${this.origin}/healthz within ${START_TIMEOUT_MS / 1000} s`);
  }

  /** SIGTERM, wait; a second SIGTERM after the grace period stops training at once and aborts requests still running. */
  async stop(): Promise<void> {
    this.log('clawloop desktop: stopping the core');
    this.proc.kill();
    const timeout = (ms: number) => new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms));
    if ((await Promise.race([this.exited, timeout(STOP_GRACE_MS)])) !== 'timeout') return;
    this.log('clawloop desktop: still running after the grace period; stopping training and requests at once');
    this.proc.kill();
    if ((await Promise.race([this.exited, timeout(STOP_HARD_MS)])) === 'timeout')
      this.log('clawloop desktop: the core did not stop in time');
  }
}
