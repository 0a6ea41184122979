import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { modelDir, ROOT } from '../helpers/paths.js';
import { startServe } from '../helpers/serveProcess.js';

/**
 * Issue 41's second probe, finding 5 on the command line: `--api-key` took keys no client can send
 * (curl got 401, Node's fetch 200), and a key on the command line is seen by every user through
 * `ps`. Keys from the command line, a file or the environment are checked like the settings route's,
 * and the key can come from a file or CLAWLOOP_API_KEY instead.
 */
describe('issue 41: the key given to clawloop serve', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-cli-key-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const serve = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    spawnSync(process.execPath, [path.join(ROOT, 'bin', 'clawloop.js'), 'serve', '--data-dir', dataDir, '--port', '0', ...args], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, CLAWLOOP_API_KEY: '', ...env },
    });

  it('5: a key no client can send is refused at start, from the flag, the environment or a file, with the reason', () => {
    for (const bad of ['clé-non-ascii-1', ' spaced key ', 'short']) {
      const r = serve(['--api-key', bad]);
      assert.equal(r.status, 2, `${JSON.stringify(bad)}: ${r.stderr}`);
      assert.match(r.stderr, /--api-key: the key (may hold only visible ASCII|needs at least 8)/);
    }
    const env = serve([], { CLAWLOOP_API_KEY: 'clé-non-ascii-1' });
    assert.equal(env.status, 2);
    assert.match(env.stderr, /CLAWLOOP_API_KEY: the key may hold only visible ASCII/);
    const file = path.join(dataDir, 'bad-key');
    fs.writeFileSync(file, 'with space inside\n');
    const fromFile = serve(['--api-key-file', file]);
    assert.equal(fromFile.status, 2);
    assert.match(fromFile.stderr, /--api-key-file .*: the key may hold only visible ASCII/);
  });

  it('a key on the command line is warned about; --help names the file and the environment instead', () => {
    const r = serve(['--api-key', 'clé-non-ascii-1']);
    assert.match(r.stderr, /warning: --api-key is visible to every user of this machine \(ps/);
    const help = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'clawloop.js'), 'serve', '--help'], { encoding: 'utf8' });
    assert.match(help.stdout + help.stderr, /--api-key-file FILE/);
    assert.match(help.stdout + help.stderr, /CLAWLOOP_API_KEY/);
  });

  it('--api-key-file gives the key without showing it on the command line', async () => {
    const file = path.join(dataDir, 'key');
    fs.writeFileSync(file, 'file-key-0123456789\n', { mode: 0o600 });
    const t = await startServe(modelDir('qwen3-qknorm'), dataDir, ['--train-method', 'off', '--api-key-file', file], {
      env: { ...process.env, CLAWLOOP_API_KEY: '' },
    });
    try {
      assert.equal((await fetch(`${t.origin}/api/sessions`)).status, 401);
      const ok = await fetch(`${t.origin}/api/sessions`, { headers: { authorization: 'Bearer file-key-0123456789' } });
      assert.equal(ok.status, 200);
      assert.doesNotMatch(t.stderr(), /warning: --api-key/);
    } finally {
      t.child.kill('SIGKILL');
    }
  });
});
