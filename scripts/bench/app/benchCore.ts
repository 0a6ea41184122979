/** A `clawloop serve` for the app benchmark: the bundled model, a temporary data folder, a free port. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface BenchCore {
  origin: string;
  stop(): Promise<void>;
}

export async function startBenchCore(root: string): Promise<BenchCore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-bench-app-'));
  const child: ChildProcess = spawn(process.execPath, ['bin/clawloop.js', 'serve', '--port', '0', '--data-dir', dataDir, '--train-method', 'off'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const origin = await new Promise<string>((resolve, reject) => {
    const on = (d: Buffer) => {
      out += d.toString();
      const m = /serving \S+ at (http:\/\/[^\s/]+)\/v1/.exec(out);
      if (m && /the app: /.test(out)) resolve(m[1]);
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.once('exit', (code) => reject(new Error(`clawloop serve exited with ${code}:\n${out}`)));
  });
  return {
    origin,
    stop: async () => {
      await new Promise<void>((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Serves a folder of static files on 127.0.0.1 (for the plot benchmark page). */
export async function serveFolder(dir: string): Promise<{ origin: string; close(): Promise<void> }> {
  const http = await import('node:http');
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    const file = path.resolve(dir, rel || 'index.html');
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
