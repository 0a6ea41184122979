#!/usr/bin/env node
// `npm run app`: builds, then starts the desktop app where an Electron binary is installed. Where
// none is (npm could not download it), says so in one line and how to use web mode instead.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let electron = null;
try {
  const p = createRequire(import.meta.url)('electron');
  electron = typeof p === 'string' ? p : null;
} catch {
  electron = null;
}
if (!electron) {
  console.error(
    'clawloop: no Electron binary is installed here (npm install could not download it); use web mode instead: `npm run serve`, then open http://127.0.0.1:30000/ in your browser.',
  );
  process.exit(1);
}
const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
if (build.status !== 0) process.exit(build.status ?? 1);
const child = spawn(electron, [path.join(root, 'dist', 'electron', 'main.js'), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
