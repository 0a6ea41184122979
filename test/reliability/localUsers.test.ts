import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_KEY_FILE } from '../../main/server/apiKeyFile.js';
import { modelDir, ROOT } from '../helpers/paths.js';
import { startServe, type ServeProcess } from '../helpers/serveProcess.js';

type Err = { error: { message: string; code: string; param: string | null } };
const mode = (p: string) => fs.statSync(p).mode & 0o777;
const posix = process.platform !== 'win32';

/**
 * Issue 41, findings 3, 5, 6, 10 and 11: `clawloop serve` as people start it is closed to other
 * users of the machine: a key of its own, a private data folder, a browser signed in by a one-time
 * link and a cookie, and nothing secret in logs, caches or `/api/info`.
 */
describe('issue 41: secure by default for other local users', () => {
  let t: ServeProcess;
  let key = '';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-local-users-'));
  const get = (p: string, headers: Record<string, string> = {}) => fetch(`${t.origin}${p}`, { headers, redirect: 'manual' });
  const bearer = () => ({ authorization: `Bearer ${key}` });

  before(async () => {
    // A data folder as an older ClawLoop left it: open to all, with an export others could read.
    fs.chmodSync(dataDir, 0o755);
    fs.mkdirSync(path.join(dataDir, 'exports'), { mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, 'exports', 'old.gguf'), 'x', { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, 'exports'), 0o755);
    t = await startServe(modelDir('qwen3-qknorm'), dataDir, ['--train-method', 'off'], { defaultAuth: true });
    key = fs.readFileSync(path.join(dataDir, API_KEY_FILE), 'utf8').trim();
  });
  after(() => {
    t.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('3/10: a random key is made on first start, and the data folder and all in it become the owner’s alone', { skip: !posix }, () => {
    assert.match(key, /^clk-[0-9a-f]{32}$/);
    assert.equal(mode(path.join(dataDir, API_KEY_FILE)), 0o600);
    assert.equal(mode(dataDir), 0o700);
    assert.equal(mode(path.join(dataDir, 'exports')), 0o700);
    assert.equal(mode(path.join(dataDir, 'exports', 'old.gguf')), 0o600);
    assert.equal(mode(path.join(dataDir, 'clawloop.db')), 0o600);
  });

  it('3/6: without the key nothing is readable or changeable; the start-up log shows a one-time link, never the key', async () => {
    for (const p of ['/api/sessions', '/api/info', '/api/settings', '/api/events', '/api/export/sessions.jsonl']) {
      assert.equal((await get(p)).status, 401, p);
    }
    const put = await fetch(`${t.origin}/api/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model_dir: '/etc' }),
    });
    assert.equal(put.status, 401, 'the model folder cannot be changed without the key');
    const judge = await fetch(`${t.origin}/api/training/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ judge: { kind: 'endpoint', url: 'http://198.51.100.1/v1', model: 'm' } }),
    });
    assert.equal(judge.status, 401, 'nor the judge');
    assert.ok(!t.stderr().includes(key), 'the key is not in the log');
    assert.match(t.stderr(), /the app: http:\/\/127\.0\.0\.1:\d+\/api\/sign-in\/[\w-]{32}/);
  });

  it('6: API answers are never cached, and /api/info does not give the key away', async () => {
    const res = await get('/api/info', bearer());
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const text = await res.text();
    assert.ok(!text.includes(key), '/api/info holds the key');
    assert.equal(JSON.parse(text).api_key_set, true);
    assert.equal((await get('/api/sessions', bearer())).headers.get('cache-control'), 'no-store');
  });

  it('3: the one-time link starts a browser session (HttpOnly, SameSite=Strict cookie and a proof) and dies on use', async () => {
    const link = new URL(/the app: (\S+)/.exec(t.stderr())![1]);
    const first = await get(link.pathname, { accept: 'text/html' });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('cache-control'), 'no-store');
    const cookie = first.headers.get('set-cookie') ?? '';
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    const proof = /"clawloop\.sessionProof","([\w-]+)"/.exec(await first.text())?.[1];
    assert.ok(proof, 'the page stores the proof');
    const pair = cookie.split(';')[0];
    assert.equal((await get('/api/sessions', { cookie: pair, 'x-clawloop-proof': proof })).status, 200, 'cookie and proof sign in');
    assert.equal((await get(link.pathname, { accept: 'text/html' })).status, 403, 'used once, the link is dead');
    assert.equal((await get('/api/sessions', { cookie: pair.replace(/=.*/, '=wrong'), 'x-clawloop-proof': proof })).status, 401);
  });

  it('3: the key typed into the app is exchanged for a session; a wrong one is a 401', async () => {
    const signIn = (api_key: string) =>
      fetch(`${t.origin}/api/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key }),
      });
    assert.equal((await signIn('clk-not-the-key')).status, 401);
    const ok = await signIn(key);
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('set-cookie') ?? '', /HttpOnly; SameSite=Strict/);
    assert.match(((await ok.json()) as { session_proof: string }).session_proof, /^[\w-]{32}$/);
  });

  it('5: a key no client could send is refused when it is set, and the old key stays in force', async () => {
    for (const bad of [' leading-space-key', 'trailing-space-key ', 'clé-accentuée-123', 'with space inside']) {
      const r = await fetch(`${t.origin}/api/settings/api-key`, {
        method: 'PUT',
        headers: { ...bearer(), 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: bad }),
      });
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.match(((await r.json()) as Err).error.message, /visible ASCII/);
    }
    assert.equal((await get('/api/sessions', bearer())).status, 200);
  });

  it("11: --no-auth with --cors '*' does not start", () => {
    const serve = (extra: string[]) =>
      spawnSync(process.execPath, [path.join(ROOT, 'bin', 'clawloop.js'), 'serve', '--data-dir', dataDir, '--port', '0', ...extra], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    const r = serve(['--no-auth', '--cors', '*']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /--cors '\*' with --no-auth would let every web page/);
    assert.match(serve(['--no-auth', '--cors', 'null']).stderr, /--cors 'null' with --no-auth/);
  });
});
