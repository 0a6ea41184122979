#!/usr/bin/env node
// Builds the app after the core: type-checks the renderer (browser types), compiles the renderer's
// state and networking with its unit tests for node:test (dist/test/app/), compiles the Electron
// shell (dist/electron/), and bundles the renderer with Vite (dist/renderer/, served by
// `clawloop serve` in web mode and loaded by the desktop app).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

const steps = [
  ['renderer types', bin('tsc'), ['-p', 'renderer/tsconfig.json']],
  ['renderer unit tests', bin('tsc'), ['-p', 'renderer/tsconfig.test.json']],
  ['electron shell', bin('tsc'), ['-p', 'electron/tsconfig.json']],
  ['renderer bundle', bin('vite'), ['build', '-c', 'renderer/vite.config.ts', '--logLevel', 'warn']],
];
if (fs.existsSync(path.join(root, 'node_modules', 'electron', 'electron.d.ts'))) {
  steps.splice(3, 0, ['electron shell against electron.d.ts', bin('tsc'), ['-p', 'electron/tsconfig.real.json']]);
}
for (const [label, cmd, args] of steps) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`build-app: ${label} failed (${cmd} ${args.join(' ')})`);
    process.exit(r.status ?? 1);
  }
}
