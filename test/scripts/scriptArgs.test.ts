import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/paths.js';

const run = promisify(execFile);
const SCRIPTS = ['bench', 'default-model'].flatMap((dir) =>
  fs
    .readdirSync(path.join(ROOT, 'scripts', dir))
    .filter((f) => f.endsWith('.ts') && fs.readFileSync(path.join(ROOT, 'scripts', dir, f), 'utf8').includes('scriptArgs(USAGE'))
    .map((f) => path.join(ROOT, 'dist/scripts', dir, f.replace(/\.ts$/, '.js'))),
);

describe('dev scripts: --help and wrong options', () => {
  it('every script that takes options uses scriptArgs', () => {
    assert.ok(SCRIPTS.length >= 14, `found ${SCRIPTS.length}`);
  });

  it('--help prints the usage and exits 0', async () => {
    for (const script of SCRIPTS) {
      const r = await run(process.execPath, [script, '--help']);
      assert.match(r.stdout, /^Usage: /, script);
    }
  });

  it('an unknown option says which and prints the usage, exit 2, no stack trace', async () => {
    const script = SCRIPTS.find((s) => s.endsWith('gateCost.js'))!;
    await assert.rejects(run(process.execPath, [script, '--bogus']), (err: { code: number; stderr: string }) => {
      assert.equal(err.code, 2);
      assert.match(err.stderr, /Unknown option '--bogus'/);
      assert.match(err.stderr, /Usage: npm run bench:gate-cost/);
      assert.doesNotMatch(err.stderr, /\n\s+at /);
      return true;
    });
  });
});
