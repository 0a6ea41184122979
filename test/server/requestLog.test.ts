import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** Lines are written when a response closes: wait until `n` have arrived. */
async function lines(got: string[], n: number): Promise<string[]> {
  for (let i = 0; i < 200 && got.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  return got.splice(0);
}

const chat = (t: TestServer, headers: Record<string, string>, body: unknown) =>
  fetch(`${t.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('one console line per request', () => {
  for (const format of ['text', 'json'] as const) {
    describe(format, () => {
      let t: TestServer;
      const got: string[] = [];
      before(async () => {
        const engine = new FakeEngine([{ events: [{ kind: 'content', text: 'four' }] }]);
        t = await startTestServer({ engine, options: { logFormat: format }, log: (l) => got.push(l) });
        got.splice(0);
      });
      after(() => t.close());

      it('a chat completion: route, status, tokens, duration, session, turn type, adapter version', async () => {
        const res = await chat(
          t,
          { 'x-session-id': 's9', 'x-turn-type': 'main' },
          { messages: [{ role: 'user', content: '2+2?' }], stream: true },
        );
        await res.text();
        const [line] = await lines(got, 1);
        if (format === 'json') {
          const o = JSON.parse(line);
          assert.equal(o.method, 'POST');
          assert.equal(o.path, '/v1/chat/completions');
          assert.equal(o.status, 200);
          assert.equal(o.prompt_tokens, 3);
          assert.equal(o.completion_tokens, 1);
          assert.equal(o.session_id, 's9');
          assert.equal(o.turn_type, 'main');
          assert.equal(o.adapter_version, 0);
          assert.equal(o.finish_reason, 'stop');
          assert.equal(typeof o.duration_ms, 'number');
          assert.match(o.time, /^\d{4}-\d\d-\d\dT/);
        } else {
          assert.match(
            line,
            /^clawloop: \d\d:\d\d:\d\d\.\d{3} · POST · \/v1\/chat\/completions · 200 · prompt 3 · completion 1 · \d+ ms · session s9 · main \(header\) · v0 · stop$/,
          );
        }
      });

      it('a refusal, with its reason', async () => {
        const res = await chat(t, {}, { messages: [], stream: true });
        assert.equal(res.status, 400);
        await res.text();
        const [line] = await lines(got, 1);
        if (format === 'json') {
          const o = JSON.parse(line);
          assert.equal(o.status, 400);
          assert.match(o.error, /messages/);
        } else assert.match(line, / · 400 · .*refused: .*messages/);
      });

      it("the app's own successful reads and health checks are not logged; their failures are", async () => {
        await (await fetch(`${t.origin}/api/sessions`)).text();
        await (await fetch(`${t.origin}/healthz`)).text();
        await (await fetch(`${t.origin}/api/training/status`)).text(); // 503: this server does not train
        const logged = await lines(got, 1);
        assert.equal(logged.length, 1, logged.join('\n'));
        assert.match(logged[0], /training\/status/);
      });
    });
  }
});
