import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cleanupExportTemp } from '../../main/server/exportTemp.js';
import { ROOT } from '../helpers/paths.js';
import { api, chat, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

type Err = { error: { message: string; code: string; param: string | null } };

/** Every entry under `dir`, recursively, as paths relative to it. */
const tree = (dir: string) => (fs.readdirSync(dir, { recursive: true }) as string[]).sort();

/** Issue 41, finding 9: export temporaries are ClawLoop's alone, and a kill leaves none behind. */
describe('issue 41: export temporaries', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-export-temp-'));
  const allowed = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-export-dir-'));
  after(() => [dataDir, allowed].forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('9: a kill in the middle of a nested and an --export-dir export leaves temporaries that the next start removes, and nothing else', () => {
    const exports = path.join(dataDir, 'exports');
    fs.mkdirSync(path.join(exports, 'a', 'b'), { recursive: true });
    // The user's own things, named as the old pattern for temporaries was.
    fs.mkdirSync(path.join(exports, '.hidden.tmp-1-2'));
    fs.writeFileSync(path.join(exports, '.hidden.tmp-1-2', 'mine.txt'), 'keep me');
    fs.writeFileSync(path.join(allowed, '.notes.tmp-3-4'), 'keep me too');
    // A process that starts two exports and is SIGKILLed while they are being written.
    const script = `
      const { writeExport } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/main/server/exportTemp.js')).href)});
      const fs = await import('node:fs');
      const half = (dir) => { fs.writeFileSync(dir + '/model.gguf', 'half'); return new Promise(() => {}); };
      void writeExport(${JSON.stringify(dataDir)}, ${JSON.stringify(path.join(exports, 'a', 'b', 'c'))}, half);
      void writeExport(${JSON.stringify(dataDir)}, ${JSON.stringify(path.join(allowed, 'deep', 'er'))}, half);
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 200);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(r.signal, 'SIGKILL', r.stderr);
    const left = [...tree(exports), ...tree(allowed)].filter((p) => p.includes('.clawloop-tmp-'));
    assert.equal(left.filter((p) => p.endsWith('model.gguf')).length, 2, `the kill left both half-written: ${left.join(', ')}`);

    assert.equal(cleanupExportTemp(dataDir), 2);
    assert.deepEqual(tree(exports), ['.hidden.tmp-1-2', '.hidden.tmp-1-2/mine.txt', 'a', 'a/b']);
    assert.deepEqual(tree(allowed), ['.notes.tmp-3-4', 'deep']);
    assert.equal(cleanupExportTemp(dataDir), 0, 'the journal is empty again');
  });

  describe('through the API', () => {
    let t: TestServer;
    const exp = (dir: string) => api<Err>(t, 'POST', '/api/checkpoints/step-000001/export', { dir });
    before(async () => {
      t = await startTestServer({ train: { method: 'rl', batch_size: 1 }, options: { exportDirs: [allowed] } });
      const c = await chat(t, 'teach me', { session: 'x', type: 'main' });
      await api(t, 'POST', '/v1/feedback', { completion_id: c.id, rating: 'up' });
      await waitFor(async () => (await api<{ step: number }>(t, 'GET', '/api/training/status')).body.step >= 1, 'a checkpoint');
    });
    after(() => t.close());

    it('9: a folder name with NUL or bidi characters, over 255 bytes, or named like a temporary is a 400 that says why', async () => {
      const cases: Array<[string, RegExp]> = [
        ['nul\u0000byte', /contains a control character/],
        ['a\u202eb', /invisible bidi\/formatting character/],
        ['iso\u2067late', /invisible bidi\/formatting character/],
        ['zero\u200bwidth', /invisible bidi\/formatting character/],
        ['x'.repeat(300), /300 bytes long .*at most 255 bytes each/],
        [path.join(allowed, 'é'.repeat(128)), /256 bytes long .*at most 255 bytes each/],
        ['y/'.repeat(2100), /path would be \d{4} bytes long; at most 4031 bytes/],
        ['z/'.repeat(2030), /path would be \d{4} bytes long; at most 4031 bytes/],
        ['.clawloop-tmp-0123456789abcdef', /ClawLoop's temporaries/],
        ['.', /is the exports folder itself/],
        [`${allowed}//`, /is the exports folder itself/],
      ];
      for (const [dir, why] of cases) {
        const r = await exp(dir);
        assert.equal(r.status, 400, `${dir.slice(0, 40)}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.param, 'dir');
        assert.match(r.body.error.message, why);
      }
    });

    it('9: nested and --export-dir exports leave no temporary, and no journal folder', async () => {
      assert.equal((await exp('n1/n2')).status, 200);
      assert.equal((await exp(path.join(allowed, 'p1', 'p2'))).status, 200);
      const all = [...tree(path.join(t.dataDir, 'exports')), ...tree(allowed)];
      assert.deepEqual(
        all.filter((p) => p.includes('.clawloop-tmp-')),
        [],
      );
      assert.equal(fs.existsSync(path.join(t.dataDir, 'unfinished-exports')), false, 'the empty journal folder is removed');
    });
  });
});
