import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/paths.js';

const run = promisify(execFile);

/** Every TypeScript file under scripts/, as [path relative to scripts/, source]. */
function scriptSources(dir = path.join(ROOT, 'scripts')): Array<[string, string]> {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e): Array<[string, string]> => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return scriptSources(p);
    return e.name.endsWith('.ts') ? [[path.relative(path.join(ROOT, 'scripts'), p), fs.readFileSync(p, 'utf8')]] : [];
  });
}

const SOURCES = scriptSources();
const WITH_ARGS = SOURCES.filter(([, src]) => src.includes('scriptArgs(USAGE'));

/** The option names of a script's scriptArgs call, read from its source (inline, or a `const OPTIONS = {…}` it names). */
function optionNames(src: string): string[] {
  const call = src.slice(src.indexOf('scriptArgs(USAGE'));
  const named = /^scriptArgs\(USAGE, \{ options: ([A-Z_]+) \}\)/.exec(call)?.[1];
  const options = named
    ? src.slice(src.indexOf(`const ${named} = {`), src.indexOf('} as const;', src.indexOf(`const ${named} = {`)))
    : call.slice(call.indexOf('options: {'), call.indexOf('\n  });'));
  return [...options.matchAll(/'?([a-z][a-z-]*)'?: \{ type:/g)].map((m) => m[1]);
}

describe('dev scripts: --help and wrong options', () => {
  it('no script parses its command line without scriptArgs', () => {
    assert.ok(WITH_ARGS.length >= 14, `found ${WITH_ARGS.length}`);
    const direct = SOURCES.filter(([file, src]) => file !== 'scriptArgs.ts' && /\bparseArgs\(/.test(src)).map(([file]) => file);
    assert.deepEqual(direct, []);
  });

  it("each script's usage names every option it takes", () => {
    for (const [file, src] of WITH_ARGS) {
      const usage = /const USAGE = `([\s\S]*?)`;/.exec(src)?.[1] ?? '';
      const names = optionNames(src);
      assert.ok(names.length > 0, `${file}: no options read`);
      for (const name of names) assert.match(usage, new RegExp(`--${name}\\b`), `${file}: --${name} is missing from its usage`);
    }
  });

  it('--help prints the usage and exits 0', async () => {
    for (const [file] of WITH_ARGS) {
      const r = await run(process.execPath, [path.join(ROOT, 'dist/scripts', file.replace(/\.ts$/, '.js')), '--help']);
      assert.match(r.stdout, /^Usage: /, file);
    }
  });

  it('an unknown option says which and prints the usage, exit 2, no stack trace', async () => {
    await assert.rejects(
      run(process.execPath, [path.join(ROOT, 'dist/scripts/bench/gateCost.js'), '--bogus']),
      (err: { code: number; stderr: string }) => {
        assert.equal(err.code, 2);
        assert.match(err.stderr, /Unknown option '--bogus'/);
        assert.match(err.stderr, /Usage: npm run bench:gate-cost/);
        assert.doesNotMatch(err.stderr, /\n\s+at /);
        return true;
      },
    );
  });
});
