#!/usr/bin/env node
// Runs the compiled tests (dist/test/**/*.test.js) with node:test:
//   1. every test, with the native kernels when the addon is built;
//   2. the numerics tests (engine, RL losses) again on pure tfjs (CLAWLOOP_NATIVE=0), so they hold both ways;
//   3. the GPU suites (test/gpu/) on the WebGPU adapter CLAWLOOP_WEBGPU_ADAPTER names, by default
//      Mesa's software rasteriser, so machines without a GPU check the GPU backend too;
//   4. the app's end-to-end suite (e2e/, Playwright in Chromium against a real clawloop serve);
//   5. with no filter, the formatter check (`npm run format:check`, counted as one test).
// Ends with one line "N passed, N failed" summing the runs, after a line for each suite that was
// skipped for a missing prerequisite (see scripts/summary-reporter.mjs). Arguments filter test files
// by substring: `npm test -- engine/lora`; `npm test -- e2e` runs the end-to-end suite alone.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
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
const e2eWanted = !filters.length || filters.some((f) => f === 'e2e' || f.startsWith('e2e/'));
if (!selected.length && !e2eWanted) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(2);
}

const reporter = path.join(root, 'scripts', 'summary-reporter.mjs');
const countsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-tests-')), 'counts.json');
const total = { passed: 0, failed: 0 };
const skipped = new Map(); // "suite: reason" -> labels of the runs that skipped it
let status = 0;

function run(label, testFiles, env) {
  fs.rmSync(countsFile, { force: true });
  const res = spawnSync(
    process.execPath,
    [
      '--test',
      `--test-concurrency=${process.env.CLAWLOOP_TEST_CONCURRENCY ?? 1}`,
      // No single test may hang the run: one that passes 10 minutes fails (and the whole run is capped
      // below). Not --test-force-exit: on Node 20 it ends a test file's process before the reports of
      // its last tests reach the runner, which then loses them without a word (once in six CI runs here;
      // 4 in 12 runs of test/engine/nativeBackend.test.ts under load). A file's servers are killed
      // when it ends (test/helpers/serveProcess.ts), so nothing is left to keep a process alive.
      '--test-timeout=600000',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${reporter}`,
      '--test-reporter-destination=stdout',
      ...testFiles,
    ],
    {
      stdio: 'inherit',
      cwd: root,
      // A last guard for CI's time limit: a run that takes an hour is stopped and counted as failed.
      timeout: 60 * 60 * 1000,
      killSignal: 'SIGKILL',
      env: { ...process.env, CLAWLOOP_ROOT: root, CLAWLOOP_TEST_LABEL: label, CLAWLOOP_TEST_COUNTS: countsFile, ...env },
    },
  );
  if (res.error) console.error(`${label}: ${res.error.message}`);
  if (res.status !== 0) status = res.status ?? 1;
  if (fs.existsSync(countsFile)) {
    const c = JSON.parse(fs.readFileSync(countsFile, 'utf8'));
    total.passed += c.passed;
    total.failed += c.failed;
    for (const s of c.skipped ?? []) {
      const key = `${s.name}: ${s.reason}`;
      skipped.set(key, [...(skipped.get(key) ?? []), label]);
    }
  } else {
    total.failed += 1; // the run crashed before reporting
  }
}

const addonFile = path.join(root, 'native', 'build', 'Release', 'clawloop_native.node');
const nativeOff = process.env.CLAWLOOP_NATIVE === '0';
const addonBuilt = fs.existsSync(addonFile) && !nativeOff;
const isGpu = (f) => path.relative(testDir, f).startsWith(`gpu${path.sep}`);
const gpuFiles = selected.filter(isGpu);
const cpuFiles = selected.filter((f) => !isGpu(f));
if (cpuFiles.length) run(addonBuilt ? 'all tests, native kernels' : 'all tests, pure tfjs', cpuFiles, {});
// The numerics: engine tests and the RL loss fixtures.
const engineFiles = cpuFiles.filter((f) => {
  const rel = path.relative(testDir, f);
  return rel.startsWith(`engine${path.sep}`) || rel.startsWith(`rl${path.sep}losses`);
});
if (addonBuilt && engineFiles.length) {
  run('numerics tests, pure tfjs (CLAWLOOP_NATIVE=0)', engineFiles, { CLAWLOOP_NATIVE: '0' });
}
if (gpuFiles.length) {
  const adapter = process.env.CLAWLOOP_WEBGPU_ADAPTER || 'software';
  run(`GPU suites, webgpu on the ${adapter} adapter`, gpuFiles, { CLAWLOOP_WEBGPU_ADAPTER: adapter });
}
// The app's end-to-end suite (e2e/, Playwright in Debian's Chromium against a real clawloop serve),
// counted in the same summary. It runs with the whole suite, or when a filter is `e2e`.
if (e2eWanted) runE2e();
if (!filters.length) runFormatCheck();
fs.rmSync(path.dirname(countsFile), { recursive: true, force: true });
if (!addonBuilt && engineFiles.length) {
  console.log(`note: the engine tests ran once, on pure tfjs (${nativeOff ? 'CLAWLOOP_NATIVE=0' : 'the native addon is not built'})`);
}
for (const [what, runs] of skipped) console.log(`skipped (${runs.join('; ')}): ${what}`);
console.log(`${total.passed} passed, ${total.failed} failed`);
// A failure the runner itself did not see (a skip, a test its file's process never finished) fails the run too.
process.exit(status || (total.failed ? 1 : 0));

/** Prettier's check of every source file not yet listed in .prettier-pending (CONTRIBUTING.md). */
function runFormatCheck() {
  const res = spawnSync('npm', ['run', '--silent', 'format:check'], { stdio: 'inherit', cwd: root, shell: process.platform === 'win32' });
  if (res.status === 0) {
    total.passed += 1;
    return;
  }
  console.error("format: these files are not in Prettier's format; run `npm run format` (CONTRIBUTING.md)");
  total.failed += 1;
  status = 1;
}

function runE2e() {
  const chromium = process.env.CLAWLOOP_CHROMIUM ?? '/usr/bin/chromium';
  if (process.env.CLAWLOOP_E2E === '0') return skipped.set('e2e: CLAWLOOP_E2E=0', ['app']);
  if (!fs.existsSync(chromium)) {
    const why = `e2e: requires Chromium at ${chromium} (Debian/Ubuntu: apt-get install chromium; or set CLAWLOOP_CHROMIUM)`;
    if (process.env.CLAWLOOP_REQUIRE_E2E !== '1') return skipped.set(why, ['app']);
    console.error(why);
    total.failed += 1;
    status = 1;
    return;
  }
  const bin = path.join(root, 'node_modules', '.bin');
  const typecheck = spawnSync(path.join(bin, 'tsc'), ['-p', 'e2e/tsconfig.json'], { stdio: 'inherit', cwd: root });
  if (typecheck.status !== 0) {
    console.error('e2e: the specs do not type-check');
    total.failed += 1;
    status = 1;
    return;
  }
  const report = path.join(path.dirname(countsFile), 'e2e.json');
  const res = spawnSync(path.join(bin, 'playwright'), ['test', '-c', 'e2e/playwright.config.ts', '--reporter=list,json'], {
    stdio: 'inherit',
    cwd: root,
    timeout: 60 * 60 * 1000,
    killSignal: 'SIGKILL',
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: report },
  });
  if (res.status !== 0) status = res.status ?? 1;
  if (!fs.existsSync(report)) {
    total.failed += 1;
    return;
  }
  const stats = JSON.parse(fs.readFileSync(report, 'utf8')).stats;
  total.passed += stats.expected + stats.flaky;
  total.failed += stats.unexpected;
  if (stats.flaky) console.log(`e2e: ${stats.flaky} test(s) passed only on a retry`);
  // A skipped spec is said in the summary, like the node runs' skips.
  if (stats.skipped) skipped.set(`e2e: ${stats.skipped} test(s) skipped (marked "-" in the list above)`, ['app']);
}
