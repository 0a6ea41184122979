/**
 * The direction of imports, as house style habit 1 and issue 10 set it:
 * - tfjs is used only inside main/engine/; everything else reaches the engine through its entry
 *   points: main/engine/index.ts, and the three that load no tfjs, so the HTTP thread can import
 *   them: main/engine/text/index.ts (messages, templates), main/engine/formats/index.ts (model
 *   folders) and main/engine/gpu/index.ts (the GPU probe); the HTTP thread's code loads no tfjs
 *   at all;
 * - main/protocol/ is a pure contract (zod and itself), so the UI can import it;
 * - main/ never imports electron; renderer/ imports nothing of main/ but main/protocol/.
 * App code is main/, electron/ and renderer/; test/ and scripts/ are tools and may reach inside.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { importsOf, sourceFiles, type ImportRef } from './sourceFiles.js';

const APP_CODE = [...sourceFiles('main'), ...sourceFiles('electron'), ...sourceFiles('renderer')];
const ENGINE = 'main/engine/';
const ENGINE_ENTRY_POINTS = [
  'main/engine/index.ts',
  'main/engine/text/index.ts',
  'main/engine/formats/index.ts',
  'main/engine/gpu/index.ts',
];
/**
 * Code the HTTP thread runs: it never runs model math (README, "How it works"), so it must not
 * even load tfjs. The engine's text entry point is imported there.
 */
const HTTP_THREAD = [
  'main/engine/text/index.ts',
  'main/engine/formats/index.ts',
  'main/engine/gpu/index.ts',
  ...sourceFiles('main/server'),
  ...sourceFiles('main/protocol'),
];

const outsideEngine = APP_CODE.filter((f) => !f.startsWith(ENGINE));
const where = (r: ImportRef) => `${r.file}:${r.line} imports '${r.specifier}'`;

function violations(files: string[], bad: (r: ImportRef) => boolean): string[] {
  return files.flatMap((f) => importsOf(f).filter(bad).map(where));
}

/** The packages a module loads when it runs: its value imports, followed through relative imports. */
function loadedPackages(entry: string): Map<string, string[]> {
  const found = new Map<string, string[]>(); // package → the import chain that loads it
  const seen = new Set<string>();
  const walk = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const r of importsOf(file)) {
      if (r.typeOnly) continue;
      if (r.target) walk(r.target, [...chain, where(r)]);
      else if (!found.has(r.specifier)) found.set(r.specifier, [...chain, where(r)]);
    }
  };
  walk(entry, []);
  return found;
}

describe('architecture: import boundaries', () => {
  it('finds the app code it checks', () => {
    assert.ok(outsideEngine.length > 20 && APP_CODE.some((f) => f.startsWith(ENGINE)), `found ${APP_CODE.length} files under main/`);
  });

  it('tfjs is imported only under main/engine/', () => {
    const bad = violations(outsideEngine, (r) => r.specifier.startsWith('@tensorflow/'));
    assert.deepEqual(bad, [], 'move the tensor code into main/engine/ and call it through main/engine/index.ts');
  });

  it('code outside main/engine/ uses the engine only through its entry points (index.ts, text/index.ts, formats/index.ts)', () => {
    const bad = violations(
      outsideEngine,
      (r) => r.target !== null && r.target.startsWith(ENGINE) && !ENGINE_ENTRY_POINTS.includes(r.target),
    );
    assert.deepEqual(
      bad,
      [],
      'import from main/engine/index.ts (or text/index.ts, formats/index.ts); export what you need there if it is missing',
    );
  });

  it("the HTTP thread (main/server/, main/protocol/, the engine's text and formats entry points) loads no tfjs", () => {
    const tfjs = HTTP_THREAD.flatMap((entry) =>
      [...loadedPackages(entry)]
        .filter(([pkg]) => pkg.startsWith('@tensorflow/'))
        .map(([pkg, chain]) => `${pkg}, loaded by ${chain.join(' → ')}`),
    );
    assert.deepEqual(
      [...new Set(tfjs)],
      [],
      'import engine types with `import type`, and reach the model through the inference and trainer workers',
    );
  });

  it('main/protocol/ imports only zod and other protocol modules', () => {
    const protocol = sourceFiles('main/protocol');
    assert.ok(protocol.length > 0, 'main/protocol/ has no files');
    const bad = violations(protocol, (r) => (r.target === null ? r.specifier !== 'zod' : !r.target.startsWith('main/protocol/')));
    assert.deepEqual(bad, [], 'the protocol is the contract the UI imports: types and zod schemas only, no Node or core modules');
  });

  it('nothing under main/ imports electron', () => {
    const bad = violations(sourceFiles('main'), (r) => r.specifier === 'electron' || r.specifier.startsWith('electron/'));
    assert.deepEqual(bad, [], 'main/ is the headless core; Electron code belongs in electron/');
  });

  it('renderer/ imports nothing of main/ but main/protocol/', () => {
    const bad = violations(
      sourceFiles('renderer'),
      (r) => r.target !== null && r.target.startsWith('main/') && !r.target.startsWith('main/protocol/'),
    );
    assert.deepEqual(bad, [], 'the UI talks to the core through the API; share types through main/protocol/');
  });
});

describe('architecture: the import reader itself', () => {
  it('tells type-only imports from imports that load a module', () => {
    const text = [
      "import type { A } from './a.js';",
      "import { type B, type C } from './b.js';",
      "import { D, type E } from './d.js';",
      "import './side-effect.js';",
      "export type { F } from './f.js';",
      "export * from './g.js';",
      "const h = await import('./h.js');",
      "type I = import('./i.js').I;",
      "import * as tf from '@tensorflow/tfjs-core';",
    ].join('\n');
    const refs = importsOf('main/x/y.ts', text).map((r) => [r.specifier, r.typeOnly, r.line]);
    assert.deepEqual(refs, [
      ['./a.js', true, 1],
      ['./b.js', true, 2],
      ['./d.js', false, 3],
      ['./side-effect.js', false, 4],
      ['./f.js', true, 5],
      ['./g.js', false, 6],
      ['./h.js', false, 7],
      ['./i.js', true, 8],
      ['@tensorflow/tfjs-core', false, 9],
    ]);
    assert.equal(
      importsOf('main/x/y.ts', "import { Model } from '../../main/engine/model/model.js';")[0].target,
      'main/engine/model/model.ts',
    );
  });
});
