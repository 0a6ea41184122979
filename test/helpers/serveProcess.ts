import { spawn, type ChildProcess } from 'node:child_process';
import { after } from 'node:test';
import path from 'node:path';
import { ROOT } from './paths.js';

export interface ServeProcess {
  child: ChildProcess;
  /** OpenAI base URL, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  origin: string;
  stderr: () => string;
}

// Every server a test starts is killed when its file's tests end, even when an assertion failed
// before the test could stop it: a live child keeps the test file's process (and CI) running forever.
const live = new Set<ChildProcess>();
const killAll = () => {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
after(killAll);
process.once('exit', killAll);

/**
 * Starts `clawloop serve` as a child process on a free port; resolves once it is serving. Tests
 * that do not exercise the key run it with --no-auth (unless `extra` gives --api-key); with
 * `defaultAuth` it runs as people start it, with the data folder's own key.
 */
export function startServe(
  modelPath: string,
  dataDir: string,
  extra: string[] = [],
  opts: { defaultAuth?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<ServeProcess> {
  const auth = opts.defaultAuth || extra.includes('--api-key') || extra.includes('--api-key-file') ? [] : ['--no-auth'];
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin', 'clawloop.js'), 'serve', '--model', modelPath, '--port', '0', '--data-dir', dataDir, ...auth, ...extra],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: opts.env ?? process.env,
    },
  );
  live.add(child);
  child.once('exit', () => live.delete(child));
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /serving \S+ at (http:\/\/\S+)/.exec(err);
      if (m) resolve({ child, url: m[1], origin: m[1].replace(/\/v1$/, ''), stderr: () => err });
    });
    child.on('exit', (code) => reject(new Error(`clawloop serve exited with ${code}:\n${err}`)));
  });
}

export const exited = (child: ChildProcess) =>
  new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', (code) => r(code))));
