import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { hostAllowed, originAllowed } from '../../main/server/requestGuards.js';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** Sends raw bytes and returns the raw answer (for requests fetch refuses to make). */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { message: string; code: string } };
const statusOf = (answer: string) => Number(answer.split(' ')[1]);

describe('what a web page can and cannot do', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      engine: new FakeEngine([{ events: [{ kind: 'content', text: 'ok' }] }]),
      options: { allowedHosts: ['workstation.lan'] },
    });
  });
  after(() => t.close());

  it('trusts loopback names, IP addresses, the bound host and allowed names; refuses other Host headers (DNS rebinding)', async () => {
    const o = { host: '127.0.0.1', allowedHosts: ['workstation.lan'] };
    for (const h of [
      '127.0.0.1:30000',
      'localhost:30000',
      'LOCALHOST',
      'app.localhost:5',
      '[::1]:30000',
      '192.168.1.20:30000',
      'workstation.lan:1',
    ]) {
      assert.ok(hostAllowed(h, o), h);
    }
    for (const h of ['evil.example:30000', 'attacker.com', 'localhost.evil.com', '']) assert.ok(!hostAllowed(h, o), h);
    const answer = await raw(t.server.port, 'GET /api/sessions HTTP/1.1\r\nHost: rebind.attacker.example\r\nConnection: close\r\n\r\n');
    assert.equal(statusOf(answer), 403);
    assert.equal(bodyOf(answer).error.code, 'forbidden_host');
    assert.match(bodyOf(answer).error.message, /--allowed-host/);
  });

  it('refuses state changes from other origins, and from opaque ones; the app’s own origin and tools without Origin pass', async () => {
    assert.ok(originAllowed('http://127.0.0.1:30000', '127.0.0.1:30000', []));
    assert.ok(!originAllowed('http://127.0.0.1:30001', '127.0.0.1:30000', []));
    assert.ok(!originAllowed('null', '127.0.0.1:30000', []));
    assert.ok(originAllowed('https://dash.example', '127.0.0.1:30000', ['https://dash.example']));
    const pause = (origin?: string) =>
      fetch(`${t.origin}/api/sessions/x`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        body: JSON.stringify({ title: 'x' }),
      });
    const foreign = await pause('https://evil.example');
    assert.equal(foreign.status, 403);
    assert.equal(((await foreign.json()) as { error: { code: string } }).error.code, 'forbidden_origin');
    assert.equal((await pause(t.origin)).status, 404); // passes the guard; the session does not exist
    assert.equal((await pause()).status, 404);
  });

  it('takes JSON bodies only as application/json (a page’s simple text/plain POST is refused, not parsed)', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await fetch(`${t.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
      });
      assert.equal(res.status, 415, type);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /Content-Type: application\/json/);
    }
    assert.equal(t.store.turnCount(), 0);
  });

  it('sends no CORS headers unless origins were configured', async () => {
    const res = await fetch(`${t.url}/models`, { headers: { origin: 'https://evil.example' } });
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });

  it('answers what Node’s parser rejects, malformed escapes and odd paths in the envelope, never with 500', async () => {
    const bad = await raw(t.server.port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n');
    assert.equal(statusOf(bad), 400);
    assert.equal(bodyOf(bad).error.code, 'bad_request');
    const huge = await raw(t.server.port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.equal(statusOf(huge), 431);
    for (const [p, status] of [
      ['/api/turns/%E0%A4%A', 400],
      ['//', 404],
      ['/api/checkpoints/%ZZ/pin', 400],
    ] as const) {
      const res = await fetch(`${t.origin}${p}`, { method: p.endsWith('pin') ? 'POST' : 'GET' });
      assert.equal(res.status, status, p);
      assert.ok(((await res.json()) as { error: { message: string } }).error.message, p);
    }
  });

  it('refuses JSON nested deeper than 64 levels before it reaches a worker', async () => {
    let deep = '1';
    for (let i = 0; i < 10_000; i++) deep = `[${deep}]`;
    const res = await fetch(`${t.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"messages":[{"role":"user","content":"x"}],"chat_template_kwargs":{"a":${deep}}}`,
    });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /nests 10002 levels deep; at most 64/);
    assert.equal((await fetch(`${t.origin}/healthz`)).status, 200);
  });
});
