import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

/**
 * The renderer runs in a browser page: it may import the pure contract in main/protocol/ and the
 * desktop bridge's types, never the core's other modules, Node built-ins or Electron.
 */
test('renderer imports only main/protocol/, electron/desktopApi (types) and browser packages', () => {
  const root = process.env.CLAWLOOP_ROOT ?? path.resolve(import.meta.dirname, '../../../..');
  const dir = path.join(root, 'renderer');
  const files: string[] = [];
  (function walk(d: string) {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (
        /\.tsx?$/.test(e.name) &&
        !/\.test\.ts$/.test(e.name) &&
        !p.includes(`${path.sep}test${path.sep}`) &&
        !p.endsWith('vite.config.ts')
      )
        files.push(p);
    }
  })(dir);
  assert.ok(files.length > 30, `found the renderer's sources in ${dir}`);
  const bad: string[] = [];
  for (const f of files) {
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/^import\s+(type\s+)?[^'"]*['"]([^'"]+)['"]/gm)) {
      const [, typeOnly, spec] = m;
      const target = spec.startsWith('.') ? path.resolve(path.dirname(f), spec) : spec;
      const rel = spec.startsWith('.') ? path.relative(root, target) : spec;
      const ok =
        rel.startsWith(`renderer${path.sep}`) ||
        rel.startsWith(`main${path.sep}protocol${path.sep}`) ||
        (typeOnly && rel === path.join('electron', 'desktopApi.js')) ||
        (!spec.startsWith('.') && !spec.startsWith('node:') && spec !== 'electron');
      if (!ok) bad.push(`${path.relative(root, f)} imports ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});
