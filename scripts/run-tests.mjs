#!/usr/bin/env node
// Runs the compiled test files (dist/test/**/*.test.js) with node:test and ends with a line
// "N passed, N failed". Arguments filter test files by substring: `npm test -- engine/lora`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testDir = path.join(root, 'dist', 'test');
if (!fs.existsSync(testDir)) {
  console.error('dist/test is missing: run `npm run build` first (npm test does it for you).');
  process.exit(2);
}
const filters = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.test.js')) files.push(p);
  }
})(testDir);
files.sort();
const selected = filters.length ? files.filter((f) => filters.some((s) => path.relative(testDir, f).includes(s))) : files;
if (!selected.length) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(2);
}
const reporter = path.join(root, 'scripts', 'summary-reporter.mjs');
const res = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${process.env.CLAWLOOP_TEST_CONCURRENCY ?? 1}`,
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    `--test-reporter=${reporter}`, '--test-reporter-destination=stdout',
    ...selected,
  ],
  { stdio: 'inherit', cwd: root, env: { ...process.env, CLAWLOOP_ROOT: root } },
);
process.exit(res.status ?? 1);
