import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { api, postJson, startTestServer, type TestServer } from '../helpers/testServer.js';

type Err = { error: { message: string; code: string } };

/**
 * Issue 41, finding 12 (second probe): every way a session id comes in meets X-Session-Id's rules,
 * the runtime line of an OpenClaw agent turn and header bytes sent as UTF-8 included.
 */
describe('issue 41: session ids from the OpenClaw runtime line and from UTF-8 headers', () => {
  let t: TestServer;
  before(async () => (t = await startTestServer({ engine: new FakeEngine([]) })));
  after(() => t.close());

  const agentTurn = (runtimeId: string) =>
    postJson(`${t.url}/chat/completions`, {
      messages: [
        { role: 'system', content: 'You are a personal assistant running inside OpenClaw.' },
        { role: 'user', content: `hello\n\nRuntime: agent=main | sessionId=${runtimeId} | model=x` },
      ],
      max_tokens: 1,
    });
  /** X-Session-Id as a client that writes UTF-8 sends it (fetch takes a header as Latin-1 bytes). */
  const withUtf8Header = (id: string) =>
    postJson(
      `${t.url}/chat/completions`,
      { messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 },
      { 'x-session-id': Buffer.from(id, 'utf8').toString('latin1'), 'x-turn-type': 'main' },
    );
  const ids = () => t.store.sessions().map((s) => s.id);

  it('12: a runtime-line id with an RTL override, NUL, a zero-width space or 701 characters is stored as a safe derived id', async () => {
    const bad = ['oc\u202etxt.exe', 'oc\u0000x', 'oc\u200bx', 'oc\u{e0041}x', 'x'.repeat(701)];
    for (const id of bad) assert.equal((await agentTurn(id)).status, 200, JSON.stringify(id));
    const stored = ids();
    assert.equal(stored.length, bad.length, 'one session each');
    for (const id of stored) assert.match(id, /^openclaw-[0-9a-f]{16}$/);
    const again = await agentTurn('oc\u202etxt.exe');
    assert.equal(again.status, 200);
    assert.equal(ids().length, bad.length, 'the same runtime id maps to the same derived session');
    assert.equal((await agentTurn('oc-plain-1')).status, 200);
    assert.ok(ids().includes('oc-plain-1'), 'a safe runtime id is kept as it is');
  });

  it('12: X-Session-Id sent as UTF-8 is read as UTF-8: an accented id works, a C1 control or RTL override is a 400', async () => {
    assert.equal((await withUtf8Header('café-ünï')).status, 200);
    assert.ok(ids().includes('café-ünï'), `stored as sent, not as Latin-1 mojibake: ${JSON.stringify(ids())}`);
    for (const bad of ['c1\u0080x', 'hdr\u202eabc', 'tag\u{e0049}x']) {
      const r = await withUtf8Header(bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(((await r.json()) as Err).error.code, 'invalid_session_id');
    }
    const latin1 = await postJson(
      `${t.url}/chat/completions`,
      { messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 },
      { 'x-session-id': 'caf\u00e9-latin1' },
    );
    assert.equal(latin1.status, 200, 'a Latin-1 header that is not UTF-8 (what Node fetch sends) still works');
    assert.ok(ids().includes('caf\u00e9-latin1'));
  });

  it('12: tag characters, word joiners and the Mongolian vowel separator are refused in ids and titles', async () => {
    for (const bad of ['tag\u{e0041}', 'wj\u2060x', 'mvs\u180ex', 'inv\u2063x']) {
      const r = await postJson(`${t.url}/chat/completions`, {
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 1,
        session_id: bad,
      });
      assert.equal(r.status, 400, JSON.stringify(bad));
      const title = await api<Err>(t, 'PATCH', '/api/sessions/oc-plain-1', { title: `Budget 2026${bad}` });
      assert.equal(title.status, 400, JSON.stringify(bad));
      assert.match(title.body.error.message, /invisible bidi\/formatting/);
    }
    assert.equal((await api(t, 'PATCH', '/api/sessions/oc-plain-1', { title: 'Budget 2026 ✓' })).status, 200);
  });
});
