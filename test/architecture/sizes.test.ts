/**
 * Parts small enough to read alone (house style, issue 10): no function in the core (main/), the
 * app (renderer/), the desktop shell (electron/) or the tools (scripts/: benchmarks, the bundled
 * model's recipe, the docs generator; issue 40) longer than MAX_FUNCTION_LINES lines, no file
 * longer than MAX_FILE_LINES. Lines are counted from a function's first line to its closing brace,
 * comments and JSX included; a nested function (a component's handler, a store's action) counts
 * toward its parent as well as on its own.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { functionSizes, lineCount, readSource, sourceFiles } from './sourceFiles.js';

const MAX_FUNCTION_LINES = 60;
const MAX_FILE_LINES = 350;

/** The measured folders, each with a floor on the files it must find (a wrong path must not pass by measuring nothing). */
const FOLDERS = [
  { dir: 'main', moreThan: 50 },
  { dir: 'renderer', moreThan: 50 },
  { dir: 'electron', moreThan: 5 },
  { dir: 'scripts', moreThan: 30 },
] as const;

/**
 * Scripts that were over the limits when scripts/ came under them (issue 40), with their size
 * then. Each may only shrink: the test fails when one grows, and when one is within the limit (then
 * it leaves this list). Nothing else may join it.
 */
const GRANDFATHERED: Record<string, number> = {
  'scripts/default-model/corpus.ts': 379,
  'scripts/default-model/trainDefault.ts': 590,
  'scripts/bench/benchEngine.ts benchLlamaCpp': 62,
  'scripts/bench/benchEngine.ts main': 76,
  'scripts/bench/benchServe.ts load': 65,
  'scripts/bench/gateCost.ts main': 99,
  'scripts/default-model/bpe.ts trainBpe': 70,
  'scripts/default-model/evalDefault.ts evaluate': 212,
  'scripts/default-model/modelCard.ts writeModelCard': 129,
  'scripts/default-model/quickEval.ts quickEval': 68,
  'scripts/default-model/trainDefault.ts main': 164,
};

/** The sizes over `limit` that are not grandfathered at that size or less, as messages. */
function overLimit(sizes: { key: string; where: string; lines: number }[], limit: number): string[] {
  return sizes
    .filter(({ key, lines }) => lines > limit && !(GRANDFATHERED[key] !== undefined && lines <= GRANDFATHERED[key]))
    .map(({ where, lines }) => `${where} has ${lines} lines`);
}

for (const { dir, moreThan } of FOLDERS) {
  const files = sourceFiles(dir);

  describe(`architecture: sizes in ${dir}/`, () => {
    it('finds the files it measures', () => {
      assert.ok(files.length > moreThan, `found ${files.length} files under ${dir}/`);
    });

    it(`no function in ${dir}/ is longer than ${MAX_FUNCTION_LINES} lines`, () => {
      const sizes = files
        .flatMap((f) => functionSizes(f))
        .map((s) => ({ key: `${s.file} ${s.name}`, where: `${s.file}:${s.line} ${s.name}`, lines: s.lines }));
      const long = overLimit(sizes, MAX_FUNCTION_LINES);
      assert.deepEqual(
        long,
        [],
        'split these into functions with one job each (a component into named sub-components, a store into slices)',
      );
    });

    it(`no file in ${dir}/ is longer than ${MAX_FILE_LINES} lines`, () => {
      const long = overLimit(
        files.map((f) => ({ key: f, where: f, lines: lineCount(readSource(f)) })),
        MAX_FILE_LINES,
      );
      assert.deepEqual(long, [], 'split these files by job, each named after its one job');
    });
  });
}

describe('architecture: scripts over the limits when they came under them', () => {
  it('each is still over its limit (one that is not leaves the list) and exists', () => {
    const sizes = new Map<string, number>();
    for (const f of sourceFiles('scripts')) {
      sizes.set(f, lineCount(readSource(f)));
      for (const s of functionSizes(f)) sizes.set(`${s.file} ${s.name}`, Math.max(s.lines, sizes.get(`${s.file} ${s.name}`) ?? 0));
    }
    const stale = Object.keys(GRANDFATHERED).filter((key) => {
      const n = sizes.get(key);
      const limit = key.includes(' ') ? MAX_FUNCTION_LINES : MAX_FILE_LINES;
      return n === undefined || n <= limit;
    });
    assert.deepEqual(stale, [], 'these are within the limits now (or gone): remove them from GRANDFATHERED');
  });
});

describe('architecture: the measuring itself', () => {
  it('measures functions, methods and arrow functions from first line to closing brace', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      `export function long(): void {\n${body(59)}\n}`, // 61 lines
      `class K {\n  m(): void {\n${body(2)}\n  }\n}`,
      `const arrow = () => {\n${body(3)}\n};`,
    ].join('\n');
    const sizes = functionSizes('main/x.ts', text).map((s) => [s.name, s.line, s.lines]);
    assert.deepEqual(sizes, [
      ['long', 1, 61],
      ['K.m', 63, 4],
      ['arrow', 68, 5],
    ]);
    assert.equal(lineCount('a\nb\n'), 2);
    assert.equal(lineCount('a\nb'), 2);
  });
});
