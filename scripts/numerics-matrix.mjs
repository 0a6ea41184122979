#!/usr/bin/env node
// Runs the numerics tests (engine, RL losses) once per BLAS kernel and once on pure tfjs, and prints,
// for each test file, the largest observed error / bound ratio of its tolerance checks
// (test/helpers/numeric.ts). A ratio near 1 means a tolerance is about to fail on some CPU; one far
// below 1 everywhere means it could be tighter.
//
//   npm run numerics:matrix                      every OpenBLAS core type this CPU can run, and pure tfjs
//   npm run numerics:matrix -- Haswell Prescott   only these (the name 'tfjs' is the CLAWLOOP_NATIVE=0 run)
//
// OpenBLAS picks its kernels by CPU model; OPENBLAS_CORETYPE forces another one, so one machine can
// show how the tolerances hold under the kernels of other CPUs (those that need AVX-512 only where
// the CPU has it: they stop with SIGILL elsewhere).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testDir = path.join(root, 'dist', 'test');
const addon = path.join(root, 'native', 'build', 'Release', 'clawloop_native.node');

const flags = fs.existsSync('/proc/cpuinfo') ? (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1] ?? '') : '';
const has = (f) => flags.split(/\s+/).includes(f);
const CORE_TYPES = [
  ['Prescott', 'pni'], // Linux's name for SSE3
  ['Core2', 'ssse3'],
  ['Nehalem', 'sse4_2'],
  ['Sandybridge', 'avx'],
  ['Haswell', 'avx2'],
  ['Zen', 'avx2'],
  ['SkylakeX', 'avx512f'],
  ['Cooperlake', 'avx512_bf16'],
  ['SapphireRapids', 'amx_tile'],
];

function chosenConfigs() {
  const asked = process.argv.slice(2);
  const all = [...CORE_TYPES.map(([name, flag]) => ({ name, flag })), { name: 'tfjs', flag: null }];
  const picked = asked.length ? all.filter((c) => asked.includes(c.name)) : all;
  const unknown = asked.filter((a) => !all.some((c) => c.name === a));
  if (unknown.length) {
    console.error(`unknown configuration(s) ${unknown.join(', ')}; valid: ${all.map((c) => c.name).join(', ')}`);
    process.exit(2);
  }
  return picked.filter((c) => {
    if (c.name !== 'tfjs' && !fs.existsSync(addon)) {
      console.log(`${c.name}: skipped, the native addon is not built (npm run build:native)`);
      return false;
    }
    if (c.flag && !has(c.flag)) {
      console.log(`${c.name}: skipped, this CPU lacks ${c.flag}`);
      return false;
    }
    return true;
  });
}

function numericsFiles() {
  const files = [];
  for (const sub of ['engine', 'rl']) {
    for (const f of fs.readdirSync(path.join(testDir, sub))) {
      if (f.endsWith('.test.js') && (sub === 'engine' || f === 'losses.test.js')) files.push(path.join(testDir, sub, f));
    }
  }
  return files.sort();
}

/** Runs the files under one configuration; returns { failed, ratios: Map<file, {ratio, what}> }. */
function runOne(config, files) {
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-numerics-')), 'log.jsonl');
  const env = { ...process.env, CLAWLOOP_ROOT: root, CLAWLOOP_NUMERICS_LOG: log };
  if (config.name === 'tfjs') env.CLAWLOOP_NATIVE = '0';
  else env.OPENBLAS_CORETYPE = config.name;
  const res = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=dot', ...files], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  const failed = (res.stdout + res.stderr).match(/^# fail (\d+)/m)?.[1] ?? (res.status === 0 ? '0' : '?');
  const ratios = new Map();
  const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
  for (const line of lines) {
    const { file, what, error, bound } = JSON.parse(line);
    const ratio = bound > 0 ? error / bound : error === 0 ? 0 : Infinity;
    if (!ratios.has(file) || ratio > ratios.get(file).ratio) ratios.set(file, { ratio, what });
  }
  fs.rmSync(path.dirname(log), { recursive: true, force: true });
  return { failed: res.status === 0 ? 0 : failed, ratios, signal: res.signal };
}

if (!fs.existsSync(testDir)) {
  console.error('dist/test is missing: run `npm run build` first (npm run numerics:matrix does it for you).');
  process.exit(2);
}
const cpu =
  (fs.existsSync('/proc/cpuinfo') && fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m)?.[1]) ||
  os.cpus()[0]?.model;
console.log(`CPU: ${cpu}`);
const files = numericsFiles();
const results = [];
for (const config of chosenConfigs()) {
  const t0 = Date.now();
  const r = runOne(config, files);
  results.push({ config, ...r });
  const worst = [...r.ratios.values()].reduce((m, x) => Math.max(m, x.ratio), 0);
  console.log(
    `${config.name}: ${r.failed} failed${r.signal ? ` (${r.signal})` : ''}, largest error/bound ${worst.toFixed(4)} (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
  );
}

const names = [...new Set(results.flatMap((r) => [...r.ratios.keys()]))].sort();
const width = Math.max(...names.map((n) => n.length), 10);
console.log(`\nlargest error / bound per test file\n${'file'.padEnd(width)}  ${results.map((r) => r.config.name.padStart(14)).join('')}`);
for (const n of names)
  console.log(`${n.padEnd(width)}  ${results.map((r) => (r.ratios.get(n)?.ratio.toFixed(4) ?? '-').padStart(14)).join('')}`);
for (const n of names) {
  const worst = results
    .map((r) => ({ name: r.config.name, ...r.ratios.get(n) }))
    .reduce((a, b) => ((b.ratio ?? 0) > (a.ratio ?? 0) ? b : a));
  console.log(`${n}: worst check '${worst.what}' under ${worst.name}`);
}
process.exit(results.some((r) => r.failed !== 0) ? 1 : 0);
