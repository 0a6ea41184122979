import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_KEY_FILE } from '../../main/server/apiKeyFile.js';
import { modelDir } from '../helpers/paths.js';
import { startServe, type ServeProcess } from '../helpers/serveProcess.js';

type Err = { error: { message: string; code: string } };

/** Signs in the way a browser does (the printed one-time link) and returns the cookie pair and the page's proof. */
async function signInByLink(t: ServeProcess): Promise<{ cookie: string; setCookie: string; proof: string }> {
  const link = await printedLink(t);
  const res = await fetch(`${t.origin}${link.pathname}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
  assert.equal(res.status, 200);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const proof = /"clawloop\.sessionProof","([\w-]+)"/.exec(await res.text())?.[1];
  assert.ok(proof, 'the sign-in page stores a proof');
  return { cookie: setCookie.split(';')[0], setCookie, proof };
}

/**
 * Issue 41's second probe, NEW-1 and finding 11 at run time. Browsers send a host's cookies to every
 * port of it, and `127.0.0.1:A` and `127.0.0.1:B` are the same site, so another local user's server
 * on another port receives ClawLoop's sign-in cookie. The cookie must hold no key and open nothing
 * without the proof the app's origin keeps; the key cannot be turned off while any page may call.
 */
describe('issue 41: a sign-in cookie received on another port opens nothing', () => {
  let t: ServeProcess;
  let key = '';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-browser-sessions-'));
  const get = (p: string, headers: Record<string, string> = {}) => fetch(`${t.origin}${p}`, { headers });

  before(async () => {
    t = await startServe(modelDir('qwen3-qknorm'), dataDir, ['--train-method', 'off', '--cors', '*'], { defaultAuth: true });
    key = fs.readFileSync(path.join(dataDir, API_KEY_FILE), 'utf8').trim();
  });
  after(() => {
    t.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('NEW-1: the cookie holds a session token, never the key, and alone (as another port receives it) gets 401', async () => {
    const { cookie, setCookie, proof } = await signInByLink(t);
    assert.ok(!setCookie.includes(key) && !setCookie.includes(encodeURIComponent(key)), 'the key is in the cookie');
    assert.match(cookie, /^clawloop_session_\d+=[\w-]{32}$/);
    assert.equal((await get('/api/sessions', { cookie })).status, 401, 'the cookie alone is replayable from another port');
    assert.equal((await get('/api/sessions', { cookie, 'x-clawloop-proof': 'a-guessed-proof' })).status, 401);
    assert.equal((await get('/api/sessions', { cookie, 'x-clawloop-proof': proof })).status, 200);
    // Repointing the judge, as the probe's attacker did with the replayed cookie, is refused too.
    const judge = await fetch(`${t.origin}/api/training/config`, {
      method: 'PUT',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ judge: { kind: 'endpoint', url: 'http://127.0.0.1:9/v1', model: 'x' } }),
    });
    assert.equal(judge.status, 401);
  });

  it('NEW-1: a used link starts nothing, and the key prompt’s session keeps the proof out of the cookie', async () => {
    const link = await printedLink(t);
    const res = await fetch(`${t.origin}${link.pathname}`, { headers: { accept: 'text/html' } });
    // The link was used by the test above: a dead link starts nothing.
    assert.equal(res.status, 403);
    const { cookie, proof } = await signInByKey(t, key);
    assert.ok(!cookie.includes(proof), 'the proof is never in a cookie');
  });

  it('a key change ends every browser session but the caller’s', async () => {
    const a = await signInByKey(t, key);
    const res = await fetch(`${t.origin}/api/settings/api-key`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ regenerate: true }),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { api_key: string; session_proof: string };
    key = body.api_key;
    assert.equal((await get('/api/sessions', { cookie: a.cookie, 'x-clawloop-proof': a.proof })).status, 401, 'the old session ended');
    const mine = (res.headers.get('set-cookie') ?? '').split(';')[0];
    assert.equal((await get('/api/sessions', { cookie: mine, 'x-clawloop-proof': body.session_proof })).status, 200);
  });

  it('signing out ends that browser’s session alone, and clears its cookie', async () => {
    const a = await signInByKey(t, key);
    const b = await signInByKey(t, key);
    const out = await fetch(`${t.origin}/api/sign-in`, { method: 'DELETE', headers: { cookie: a.cookie, 'x-clawloop-proof': a.proof } });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie') ?? '', /^clawloop_session_\d+=; .*Max-Age=0/);
    assert.equal((await get('/api/sessions', { cookie: a.cookie, 'x-clawloop-proof': a.proof })).status, 401);
    assert.equal((await get('/api/sessions', { cookie: b.cookie, 'x-clawloop-proof': b.proof })).status, 200);
    const replay = await fetch(`${t.origin}/api/sign-in`, { method: 'DELETE', headers: { cookie: b.cookie } });
    assert.equal(replay.status, 401, 'the cookie alone cannot even sign a browser out');
  });

  it("11: with --cors '*' the key cannot be turned off at run time (400 saying why), and pages stay out", async () => {
    const off = await fetch(`${t.origin}/api/settings/api-key`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: null }),
    });
    assert.equal(off.status, 400);
    assert.match(((await off.json()) as Err).error.message, /--cors '\*' without an API key would let every web page/);
    const del = await fetch(`${t.origin}/api/sessions/victim`, { method: 'DELETE', headers: { origin: 'null' } });
    assert.equal(del.status, 401);
  });
});

/** The one-time link `clawloop serve` printed (its line follows the "serving" line startServe waits for). */
async function printedLink(t: ServeProcess): Promise<URL> {
  for (let i = 0; i < 200 && !/the app: \S+/.test(t.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
  return new URL(/the app: (\S+)/.exec(t.stderr())![1]);
}

/** Signs in the way the app's key prompt does (POST /api/sign-in). */
async function signInByKey(t: ServeProcess, key: string): Promise<{ cookie: string; proof: string }> {
  const res = await fetch(`${t.origin}/api/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: key }),
  });
  assert.equal(res.status, 200);
  const { session_proof } = (await res.json()) as { session_proof: string };
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0], proof: session_proof };
}

/**
 * The probe's "a key turned off in the app comes back at the next start": by design (secure by
 * default, only --no-auth starts a core without a key), now said by the app, the API and the docs.
 */
describe('issue 41: a key turned off in the app lasts until the next start', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-key-off-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('a browser stays signed in across a restart; the sessions file holds only hashes, owner-only', async () => {
    let t = await startServe(modelDir('qwen3-qknorm'), dataDir, ['--train-method', 'off'], { defaultAuth: true });
    const key = fs.readFileSync(path.join(dataDir, API_KEY_FILE), 'utf8').trim();
    let s: { cookie: string; proof: string };
    try {
      s = await signInByKey(t, key);
    } finally {
      t.child.kill('SIGKILL');
    }
    const file = path.join(dataDir, 'browser-sessions.json');
    const text = fs.readFileSync(file, 'utf8');
    for (const secret of [key, s.proof, s.cookie.split('=')[1]]) assert.ok(!text.includes(secret), 'a secret is in the sessions file');
    if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    t = await startServe(modelDir('qwen3-qknorm'), dataDir, ['--train-method', 'off'], { defaultAuth: true });
    try {
      const port = new URL(t.origin).port;
      const cookie = s.cookie.replace(/^clawloop_session_\d+/, `clawloop_session_${port}`); // a new port: the browser's cookie for it
      assert.equal((await fetch(`${t.origin}/api/sessions`, { headers: { cookie, 'x-clawloop-proof': s.proof } })).status, 200);
      assert.equal((await fetch(`${t.origin}/api/sessions`, { headers: { cookie } })).status, 401);
    } finally {
      t.child.kill('SIGKILL');
    }
  });

  it('turned off, no key is needed; the next start takes the data folder’s key again', async () => {
    let t = await startServe(modelDir('qwen3-qknorm'), dataDir, ['--train-method', 'off'], { defaultAuth: true });
    const key = fs.readFileSync(path.join(dataDir, API_KEY_FILE), 'utf8').trim();
    try {
      const off = await fetch(`${t.origin}/api/settings/api-key`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: null }),
      });
      assert.equal(off.status, 200);
      assert.equal((await fetch(`${t.origin}/api/sessions`)).status, 200, 'no key needed until the restart');
    } finally {
      t.child.kill('SIGKILL');
    }
    t = await startServe(modelDir('qwen3-qknorm'), dataDir, ['--train-method', 'off'], { defaultAuth: true });
    try {
      assert.equal((await fetch(`${t.origin}/api/sessions`)).status, 401);
      assert.equal((await fetch(`${t.origin}/api/sessions`, { headers: { authorization: `Bearer ${key}` } })).status, 200);
    } finally {
      t.child.kill('SIGKILL');
    }
  });
});
