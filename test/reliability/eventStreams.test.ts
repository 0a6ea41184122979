import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { REPLAY_PAGE } from '../../main/server/routes/eventsRoute.js';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { EventStreamClient } from '../helpers/eventStream.js';
import { startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

/** Issue 41, findings 2 and 7: /api/events is bounded, cleans up after itself and never goes silent. */
describe('issue 41: the event stream', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ engine: new FakeEngine([]), options: { maxEventStreams: 6, maxEventStreamsPerClient: 3 } });
  });
  after(() => t.close());

  const publish = (message: string) => t.server.events.publish({ event: 'error', data: { where: 'server', message } });
  const open = (agent: string, opts: { lastEventId?: number; since?: number } = {}) =>
    EventStreamClient.open(t.origin, { ...opts, headers: { 'user-agent': agent } });
  const status = async (agent: string) =>
    (
      await fetch(`${t.origin}/api/events`, { headers: { 'user-agent': agent }, signal: AbortSignal.timeout(5000) }).then(async (r) => {
        await r.body?.cancel();
        return r;
      })
    ).status;

  it('2: a stream that ends gives back its shutdown hook and its listener', async () => {
    const hooks = t.server.shutdownHookCount;
    const listeners = t.server.events.subscriberCount;
    for (let i = 0; i < 40; i++) {
      const c = new AbortController();
      const res = await fetch(`${t.origin}/api/events`, { signal: c.signal, headers: { 'user-agent': `cycle-${i}` } });
      assert.equal(res.status, 200);
      c.abort();
    }
    await waitFor(() => t.server.shutdownHookCount === hooks && t.server.events.subscriberCount === listeners, 'the hooks removed', 10_000);
  });

  it('2: HEAD answers the headers and ends, holding nothing', async () => {
    const res = await fetch(`${t.origin}/api/events`, { method: 'HEAD', signal: AbortSignal.timeout(5000) });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.equal(t.server.shutdownHookCount, 0);
  });

  it('2: streams are capped per client and in all, with a 429 that says so; a closed one frees its slot', async () => {
    const a = await Promise.all([open('a'), open('a'), open('a')]);
    assert.equal(await status('a'), 429, 'a fourth stream for one client');
    const b = await Promise.all([open('b'), open('b'), open('b')]);
    const refused = await fetch(`${t.origin}/api/events`, { headers: { 'user-agent': 'c' } });
    assert.equal(refused.status, 429, 'a seventh stream in all');
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /at most 3 per client, 6 in all/);
    await a[0].close();
    await waitFor(async () => (await status('c')) === 200, 'a slot freed');
    await Promise.all([...a.slice(1), ...b].map((c) => c.close()));
    await waitFor(() => t.server.shutdownHookCount === 0, 'every stream ended');
  });

  for (const lastEventId of ['1000000', '1e308', '99999999999999999999', '-1', 'abc']) {
    it(`7: Last-Event-ID ${lastEventId} (above the newest event, or no id of this log) replays this log after a gap and stays live`, async () => {
      const newest = t.server.events.newestId;
      const res = await fetch(`${t.origin}/api/events`, {
        headers: { 'last-event-id': lastEventId, 'user-agent': `restart-${lastEventId}` },
        signal: AbortSignal.timeout(10_000), // a silent stream fails the read instead of hanging the test
      });
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      let text = '';
      publish(`after a restart ${lastEventId}`);
      const decoder = new TextDecoder();
      await waitFor(async () => {
        text += decoder.decode((await reader.read()).value ?? new Uint8Array(), { stream: true });
        return text.includes(`after a restart ${lastEventId}`);
      }, 'the live event after a restart');
      const requested = lastEventId === '1000000' ? 1000000 : Number.MAX_SAFE_INTEGER;
      assert.match(text, new RegExp(`event: stream\\.gap\\ndata: \\{"requested":${requested},`), 'told to refetch state');
      assert.match(text, new RegExp(`^id: ${newest}$`, 'm'), 'the log replayed from its start');
      await reader.cancel();
    });
  }
  it('2: a replay is read from the store a page at a time, as the client reads it', async () => {
    const first = t.server.events.newestId;
    const total = 12 * REPLAY_PAGE;
    t.db.transaction(() => {
      for (let i = 0; i < total; i++) publish(`replayed ${i} ${'x'.repeat(4000)}`);
    })();
    const pages: number[] = [];
    const page = t.server.events.page.bind(t.server.events);
    t.server.events.page = (afterId, limit) => {
      pages.push(limit);
      return page(afterId, limit);
    };
    try {
      // A client that asks for everything and then does not read: the server stops at the socket's buffers.
      const socket = net.connect(t.server.port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      socket.pause();
      socket.write(`GET /api/events?since=${first} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n\r\n`);
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(pages.length > 0 && pages.length < 12, `${pages.length} pages were read while the client read nothing`);
      console.log(`${pages.length} of ${total / REPLAY_PAGE} pages read while the client read nothing`);
      assert.ok(pages.every((n) => n === REPLAY_PAGE));
      const ids: number[] = [];
      let tail = '';
      let live = false;
      socket.on('data', (d: Buffer) => {
        const text = tail + d.toString('latin1');
        for (const m of text.matchAll(/\nid: (\d+)\n/g)) ids.push(Number(m[1]));
        tail = text.slice(-40); // an id line split across two chunks is found in the next
        if (/\nid: \d+\n/.test(tail)) tail = tail.slice(tail.lastIndexOf('\nid: ') + 1);
        live ||= text.includes('live after the replay');
      });
      socket.resume();
      await waitFor(() => ids.at(-1) === first + total, 'the whole replay', 30_000);
      publish('live after the replay');
      await waitFor(() => live, 'the live event');
      assert.equal(ids.length, total + 1, 'every event once');
      assert.ok(
        ids.every((id, i) => i === 0 || id === ids[i - 1] + 1),
        'in order, none missing',
      );
      socket.destroy();
    } finally {
      t.server.events.page = page;
    }
  });
});
