/**
 * Parts small enough to read alone (house style, issue 10): no function in the core (main/), the
 * app (renderer/) or the desktop shell (electron/) longer than MAX_FUNCTION_LINES lines, no file
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
] as const;

for (const { dir, moreThan } of FOLDERS) {
  const files = sourceFiles(dir);

  describe(`architecture: sizes in ${dir}/`, () => {
    it('finds the files it measures', () => {
      assert.ok(files.length > moreThan, `found ${files.length} files under ${dir}/`);
    });

    it(`no function in ${dir}/ is longer than ${MAX_FUNCTION_LINES} lines`, () => {
      const long = files
        .flatMap((f) => functionSizes(f))
        .filter((s) => s.lines > MAX_FUNCTION_LINES)
        .map((s) => `${s.file}:${s.line} ${s.name} has ${s.lines} lines`);
      assert.deepEqual(long, [], 'split these into functions with one job each (a component into named sub-components, a store into slices)');
    });

    it(`no file in ${dir}/ is longer than ${MAX_FILE_LINES} lines`, () => {
      const long = files
        .map((f) => ({ f, n: lineCount(readSource(f)) }))
        .filter(({ n }) => n > MAX_FILE_LINES)
        .map(({ f, n }) => `${f} has ${n} lines`);
      assert.deepEqual(long, [], 'split these files by job, each named after its one job');
    });
  });
}

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
