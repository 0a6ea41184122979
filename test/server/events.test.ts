import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_SCHEMAS, isEventName } from '../../main/protocol/events.js';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { EventStreamClient } from '../helpers/eventStream.js';
import { api, chat, startTestServer, type TestServer } from '../helpers/testServer.js';

describe('GET /api/events: one live stream, replayable with Last-Event-ID, kept across restarts', () => {
  let t: TestServer;
  before(async () => (t = await startTestServer({ engine: new FakeEngine([]) })));
  after(() => t?.close());

  it('streams what happens as it happens, each event numbered and matching its schema', async () => {
    const s = await EventStreamClient.open(t.origin, { lastEventId: 0 });
    const a = await chat(t, 'first', { session: 'ev', type: 'main' });
    await chat(t, 'second', { session: 'ev', type: 'main' });
    await api(t, 'POST', '/v1/feedback', { completion_id: a.id, rating: 'down', hint: 'be brief' });
    await s.waitFor((e) => e.event === 'feedback.received' && e.data.kind === 'hint', 'the hint');
    await s.close();
    const mine = s.events.filter((e) => e.event !== 'adapter.live');
    assert.deepEqual(
      mine.map((e) => [e.event, e.data.kind ?? e.data.turn_id]),
      [
        ['turn.captured', a.id],
        ['feedback.received', 'next_state'],
        ['turn.captured', mine[2].data.turn_id],
        ['feedback.received', 'thumbs_down'],
        ['feedback.received', 'hint'],
      ],
    );
    assert.equal(mine[1].data.turn_id, a.id);
    assert.equal(mine[1].data.text, 'second');
    for (let i = 1; i < s.events.length; i++) assert.ok(s.events[i].id > s.events[i - 1].id, 'ids increase');
    for (const e of s.events) {
      assert.ok(isEventName(e.event), e.event);
      const { at, ...data } = e.data;
      assert.equal(typeof at, 'number');
      EVENT_SCHEMAS[e.event as keyof typeof EVENT_SCHEMAS].parse(data);
    }
  });

  it('a client that reconnects with Last-Event-ID gets exactly what it missed, then the live events', async () => {
    const first = await EventStreamClient.open(t.origin);
    const c = await chat(t, 'before the drop', { session: 'drop', type: 'main' });
    const seen = await first.waitFor((e) => e.event === 'turn.captured' && e.data.turn_id === c.id, 'the first turn');
    await first.close();
    // Missed while disconnected:
    const missed = [
      await chat(t, 'while away 1', { session: 'drop', type: 'main' }),
      await chat(t, 'while away 2', { session: 'drop', type: 'main' }),
    ];
    const back = await EventStreamClient.open(t.origin, { lastEventId: seen.id });
    const live = await chat(t, 'after coming back', { session: 'drop', type: 'main' });
    await back.waitFor((e) => e.event === 'turn.captured' && e.data.turn_id === live.id, 'the live turn');
    await back.close();
    const ids = back.events.map((e) => e.id);
    assert.equal(ids[0], seen.id + 1, 'the replay starts right after the last event seen');
    assert.deepEqual(
      ids,
      [...ids].sort((x, y) => x - y),
    );
    assert.equal(new Set(ids).size, ids.length, 'no event twice');
    const captured = back.events.filter((e) => e.event === 'turn.captured').map((e) => e.data.turn_id);
    assert.deepEqual(captured, [...missed.map((m) => m.id), live.id]);
  });

  it('sends a heartbeat comment while idle, and a stream.gap event when asked for events no longer kept', async () => {
    const quick = await startTestServer({ engine: new FakeEngine([]), options: { keepAliveMs: 50 } });
    try {
      for (let i = 0; i < 3; i++) await chat(quick, `turn ${i}`, { session: 'g', type: 'main' });
      const s = await EventStreamClient.open(quick.origin);
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(s.comments >= 2, `heartbeats: ${s.comments}`);
      await s.close();
      // Pretend the oldest events were pruned: a client resuming from before them is told so first.
      quick.db.prepare('DELETE FROM events WHERE id <= 3').run();
      const resumed = await EventStreamClient.open(quick.origin, { lastEventId: 1 });
      const gap = await resumed.waitFor((e) => e.event === 'stream.gap', 'the gap event');
      assert.deepEqual(gap.data, { requested: 1, oldest: 4 });
      assert.equal(resumed.events[0].event, 'stream.gap');
      assert.equal(resumed.events[1].id, 4);
      await resumed.close();
    } finally {
      await quick.close();
    }
  });

  it('survives a restart: the ids go on and the old events are replayed to a client that asks', async () => {
    const s = await EventStreamClient.open(t.origin);
    const c = await chat(t, 'before the restart', { session: 'r', type: 'main' });
    const last = await s.waitFor((e) => e.data.turn_id === c.id, 'the turn');
    await s.close();
    const dataDir = t.dataDir;
    await t.close(true);
    t = await startTestServer({ engine: new FakeEngine([]), dataDir });
    const replay = await EventStreamClient.open(t.origin, { lastEventId: last.id - 1 });
    await replay.waitFor((e) => e.id === last.id, 'the replayed event');
    const next = await chat(t, 'after the restart', { session: 'r', type: 'main' });
    const fresh = await replay.waitFor((e) => e.data.turn_id === next.id, 'a new event');
    await replay.close();
    assert.ok(fresh.id > last.id, 'ids keep increasing across restarts');
  });
});
