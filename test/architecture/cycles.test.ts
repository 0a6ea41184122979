/**
 * No runtime import cycles anywhere in the repository's TypeScript (house style: layers only point
 * down; issue 40). Type-only imports are allowed both ways: they load nothing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { importCycles, runtimeImportGraph } from './importCycles.js';
import { importsOf, sourceFiles } from './sourceFiles.js';

const FOLDERS = ['main', 'electron', 'renderer', 'scripts', 'test', 'e2e'];

describe('architecture: import cycles', () => {
  const files = FOLDERS.flatMap((dir) => sourceFiles(dir));

  it('finds the files it checks', () => {
    assert.ok(files.length > 300, `found ${files.length} files`);
  });

  it('no module loads itself through its own imports', () => {
    const cycles = importCycles(runtimeImportGraph(files)).map((path) => path.join(' → '));
    assert.deepEqual(
      cycles,
      [],
      'break each cycle: move what both sides need into a module of its own, or import types with `import type`',
    );
  });
});

describe('architecture: the cycle finder itself', () => {
  const sources: Record<string, string> = {
    'main/a.ts': "import { b } from './b.js';\nimport type { T } from './t.js';",
    'main/b.ts': "import { c } from './c.js';",
    'main/c.ts': "export { a } from './a.js';",
    'main/t.ts': "import type { A } from './a.js';\nimport { d } from './d.js';",
    'main/d.ts': "const t = await import('./t.js');",
    'main/e.ts': "import type { A } from './a.js';",
    'main/self.ts': "import './self.js';",
  };
  // importsOf resolves targets against the real tree, where these files do not exist: map them by name.
  const byName = (file: string) =>
    importsOf(file, sources[file]).map((r) => ({ ...r, target: `main/${r.specifier.replace(/^\.\//, '').replace(/\.js$/, '.ts')}` }));

  it('finds value-import cycles, dynamic ones and self-imports, and ignores type-only imports', () => {
    const cycles = importCycles(runtimeImportGraph(Object.keys(sources), byName));
    assert.deepEqual(cycles, [
      ['main/a.ts', 'main/b.ts', 'main/c.ts', 'main/a.ts'],
      ['main/d.ts', 'main/t.ts', 'main/d.ts'],
      ['main/self.ts', 'main/self.ts'],
    ]);
  });
});
