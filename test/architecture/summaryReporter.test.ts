/**
 * scripts/summary-reporter.mjs, the count behind `npm test`'s "N passed, N failed": a test that
 * never finished must not vanish from it. node:test reports nothing for the tests a file had queued
 * when its process exits with status 0 midway, so the reporter counts them as failed and names them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/paths.js';

const REPORTER = path.join(ROOT, 'scripts', 'summary-reporter.mjs');

function withoutTestContext(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, ...rest } = env;
  return rest;
}

/** Runs the test files (name -> source) under the reporter; its printed lines and saved counts. */
function report(files: Record<string, string>): { out: string; counts: { passed: number; failed: number } } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-reporter-'));
  try {
    for (const [name, source] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), source);
    const countsFile = path.join(dir, 'counts.json');
    const res = spawnSync(process.execPath, ['--test', `--test-reporter=${REPORTER}`, ...Object.keys(files)], {
      cwd: dir,
      encoding: 'utf8',
      // Without NODE_TEST_CONTEXT: set in this test's own process, it would make the inner run a child of ours.
      env: { ...withoutTestContext(process.env), CLAWLOOP_TEST_COUNTS: countsFile, CLAWLOOP_TEST_LABEL: '' },
    });
    return { out: res.stdout, counts: JSON.parse(fs.readFileSync(countsFile, 'utf8')) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const suite = (second: string) => `import { describe, it } from 'node:test';
describe('suite', () => {
  it('first', () => {});
  it('second: with a colon', async () => { ${second} await new Promise((r) => setTimeout(r, 100)); });
  it('third', () => {});
});
`;

describe('the summary reporter', () => {
  it('counts every test of files that run to their end', () => {
    const r = report({ 'a.test.mjs': suite(''), 'b.test.mjs': suite('') });
    assert.deepEqual([r.counts.passed, r.counts.failed], [6, 0]);
    assert.match(r.out, /6 passed, 0 failed/);
  });

  it("counts the tests a file's process never finished as failed, and names them", () => {
    const r = report({ 'a.test.mjs': suite('setTimeout(() => process.exit(0), 1);'), 'b.test.mjs': suite('') });
    // a: 'first' passed; the suite, 'second…' and 'third' never finished. b: all three passed.
    assert.deepEqual([r.counts.passed, r.counts.failed], [4, 3]);
    assert.match(r.out, /did not finish.*second: with a colon \(.*a\.test\.mjs\).*third/);
    assert.doesNotMatch(r.out, /b\.test\.mjs/);
  });
});
