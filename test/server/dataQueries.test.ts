import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { api, postJson, startTestServer, type TestServer } from '../helpers/testServer.js';

describe("the app's views of recorded turns: titles, requests without a session, text search, filtered export", () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ engine: new FakeEngine([]) });
    const ask = async (content: string, headers: Record<string, string>) => {
      const res = await postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content }] }, headers);
      assert.equal(res.status, 200);
    };
    // As OpenClaw sends a run's first message: the envelope, the runtime line, then its own context.
    const first = '[Fri 2026-11-27 12:03 UTC] Feed the zebrafish at noon\n\nRuntime: agent=main | model=clawloop | sessionId=oc';
    const res = await postJson(
      `${t.url}/chat/completions`,
      {
        messages: [
          { role: 'user', content: first },
          { role: 'user', content: '<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> files' },
        ],
      },
      { 'x-session-id': 'oc', 'x-turn-type': 'main' },
    );
    assert.equal(res.status, 200);
    await ask('A 50%_off ZEBRAFISH tank', { 'x-session-id': 'other', 'x-turn-type': 'main' });
    await ask('No session here', {});
  });
  after(() => t.close());

  it("lists a session's preview in the user's own words, and the requests without a session last, as 'unknown'", async () => {
    const list = (await api<{ data: Array<{ id: string; preview: string | null; turns: number }> }>(t, 'GET', '/api/sessions')).body.data;
    assert.equal(list.find((s) => s.id === 'oc')?.preview, 'Feed the zebrafish at noon');
    assert.deepEqual([list.at(-1)?.id, list.at(-1)?.turns, list.at(-1)?.preview], ['unknown', 1, 'No session here']);
    const unknown = await api<{ turns: unknown[] }>(t, 'GET', '/api/sessions/unknown');
    assert.equal(unknown.body.turns.length, 1);
    const filtered = await api<{ data: unknown[] }>(t, 'GET', '/api/turns?session_id=unknown');
    assert.equal(filtered.body.data.length, 1);
  });

  it('q finds turns by text in any case; % and _ are plain characters', async () => {
    const ids = async (q: string) =>
      (await api<{ data: Array<{ session_id: string }> }>(t, 'GET', `/api/turns?q=${encodeURIComponent(q)}`)).body.data
        .map((x) => x.session_id)
        .sort();
    assert.deepEqual(await ids('zebrafish'), ['oc', 'other']);
    assert.deepEqual(await ids('50%_off'), ['other']);
    assert.deepEqual(await ids('5_%'), []);
  });

  it('the export with a filter holds only the turns it matches; without one, every session', async () => {
    const lines = async (query: string) =>
      (await (await fetch(`${t.origin}/api/export/sessions.jsonl${query}`)).text())
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { session_id: string }).session_id);
    assert.deepEqual(await lines('?q=noon'), ['oc']);
    assert.deepEqual(await lines('?session_id=unknown'), ['unknown']);
    assert.deepEqual((await lines('')).sort(), ['oc', 'other', 'unknown']);
  });
});
