import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, test } from 'node:test';
import type { ClawLoopEvent } from './events.js';
import { EventStreamClient, type StreamStatus } from './eventStream.js';
import { until } from '../test/fakeCore.js';

// Valid data of a few events (the client checks each against the contract's schema).
const STEP = (step: number) => ({
  step,
  loss: 0.5,
  reward_mean: 1,
  kl: 0,
  clip_frac: 0,
  lr: 1e-3,
  samples: 1,
  tokens: 9,
  step_seconds: 0.4,
  skipped: false,
  skip_reason: null,
  turn_ids: [],
  at: 5,
});
const LIVE = { version: 1, checkpoint_id: 'step-1', reason: 'trained', at: 6 };
const SAVED = {
  checkpoint_id: 'step-2',
  version: 2,
  parent: null,
  step: 2,
  metrics: { loss: 1, reward_mean: 1, samples: 1, tokens: 9 },
  competence: null,
};
const CAPTURED = {
  session_id: 's',
  turn_id: 't1',
  turn_type: 'main',
  adapter_version: 0,
  prompt_tokens: 1,
  completion_tokens: 1,
  finish_reason: 'stop',
};

/**
 * A stand-in for the core's /api/events on a real socket: it keeps an event log, replays what
 * follows Last-Event-ID, and can drop its connections or stop and start again on the same port.
 */
class EventServer {
  log: Array<{ id: number; type: string; data: unknown }> = [];
  lastEventIds: Array<string | null> = [];
  silent = false;
  private server: http.Server | null = null;
  private clients = new Set<http.ServerResponse>();
  port = 0;

  async start(port = 0): Promise<void> {
    this.server = http.createServer((req, res) => {
      this.lastEventIds.push((req.headers['last-event-id'] as string | undefined) ?? null);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      if (this.silent) return;
      const after = Number(req.headers['last-event-id'] ?? 0);
      for (const e of this.log) if (e.id > after) this.write(res, e);
      this.clients.add(res);
      res.on('close', () => this.clients.delete(res));
    });
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    this.port = (this.server!.address() as AddressInfo).port;
  }

  private write(res: http.ServerResponse, e: { id: number; type: string; data: unknown }) {
    res.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
  }

  emit(type: string, data: unknown, id = (this.log.at(-1)?.id ?? 0) + 1): void {
    const e = { id, type, data };
    this.log.push(e);
    for (const c of this.clients) this.write(c, e);
  }

  emitRaw(text: string): void {
    for (const c of this.clients) c.write(text);
  }

  dropConnections(): void {
    for (const c of this.clients) c.destroy();
    this.clients.clear();
  }

  async stop(): Promise<void> {
    this.dropConnections();
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.server = null;
  }
}

const servers: EventServer[] = [];
const clients: EventStreamClient[] = [];
afterEach(async () => {
  clients.splice(0).forEach((c) => c.stop());
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

function connect(server: EventServer, extra: { idleTimeoutMs?: number } = {}) {
  const events: ClawLoopEvent[] = [];
  const statuses: StreamStatus[] = [];
  const resyncs: string[] = [];
  const client = new EventStreamClient({
    open: (lastId, signal) =>
      fetch(`http://127.0.0.1:${server.port}/api/events`, { headers: lastId ? { 'last-event-id': lastId } : {}, signal }),
    onEvent: (e) => events.push(e),
    onStatus: (s) => statuses.push(s),
    onResync: (r) => resyncs.push(r),
    retryMs: 20,
    maxRetryMs: 50,
    ...extra,
  });
  clients.push(client);
  client.start();
  return { client, events, statuses, resyncs };
}

async function serve(port = 0): Promise<EventServer> {
  const s = new EventServer();
  await s.start(port);
  servers.push(s);
  return s;
}

test('event stream: typed events in order; unknown names and malformed data are skipped', async () => {
  const server = await serve();
  const { events, client } = connect(server);
  await until(() => client.currentStatus.state === 'open', 3000, 'open');
  server.emit('train.step', STEP(1));
  server.emit('no.such.event', { x: 1 });
  server.emit('adapter.live', '{not json');
  server.emit('adapter.live', { version: 'one', checkpoint_id: null, reason: 'trained' });
  server.emit('adapter.live', LIVE);
  await until(() => events.length === 2, 3000, 'two events');
  assert.deepEqual(
    events.map((e) => [e.id, e.event, e.at]),
    [
      [1, 'train.step', 5],
      [5, 'adapter.live', 6],
    ],
  );
  assert.equal((events[1].data as { version: number }).version, 1);
  assert.equal(client.lastEventId, 5, 'skipped events still advance the id');
});

test('event stream: a dropped connection reconnects with Last-Event-ID and gets exactly what it missed', async () => {
  const server = await serve();
  const { events, client, resyncs } = connect(server);
  await until(() => client.currentStatus.state === 'open');
  server.emit('train.step', STEP(1));
  await until(() => events.length === 1);
  server.dropConnections();
  // Emitted while no client is connected: only the replay can deliver these.
  server.emit('train.step', STEP(2));
  server.emit('checkpoint.saved', SAVED);
  await until(() => events.length === 3, 3000, 'replayed events');
  assert.deepEqual(
    events.map((e) => e.id),
    [1, 2, 3],
  );
  assert.deepEqual(server.lastEventIds, [null, '1']);
  assert.deepEqual(resyncs, ['reconnected']);
});

test('event stream: the core stopping shows down, and its restart on the same port recovers with a replay', async () => {
  const first = await serve();
  const { events, client, statuses } = connect(first);
  await until(() => client.currentStatus.state === 'open');
  first.emit('turn.captured', CAPTURED);
  await until(() => events.length === 1);
  const port = first.port;
  const log = first.log;
  await first.stop();
  servers.splice(servers.indexOf(first), 1);
  // Down, with the failure explained and the next attempt scheduled.
  await until(() => client.currentStatus.state === 'down' && client.currentStatus.retryAt !== null, 3000, 'down');
  assert.ok(client.currentStatus.error);
  // The core comes back with its event log (kept in SQLite) plus what happened while it started.
  const second = await serve(port);
  second.log = [...log];
  second.emit('adapter.live', { version: 0, checkpoint_id: null, reason: 'startup' });
  await until(() => client.currentStatus.state === 'open', 3000, 'open again');
  await until(() => events.length === 2, 3000, 'replay after restart');
  assert.deepEqual(second.lastEventIds, ['1']);
  assert.deepEqual(
    events.map((e) => [e.id, e.event]),
    [
      [1, 'turn.captured'],
      [2, 'adapter.live'],
    ],
  );
  assert.ok(statuses.some((s) => s.state === 'down'));
});

test('event stream: ids that go backwards (a new event log) ask for a full resync', async () => {
  const server = await serve();
  const { events, client, resyncs } = connect(server);
  await until(() => client.currentStatus.state === 'open');
  server.emit('train.step', STEP(1), 10);
  await until(() => events.length === 1);
  server.emit('train.step', STEP(1), 3);
  await until(() => events.length === 2);
  assert.deepEqual(resyncs, ['reset']);
  assert.equal(client.lastEventId, 3);
});

test('event stream: when the core no longer has the events missed (stream.gap), a full resync is asked for', async () => {
  const server = await serve();
  const { client, resyncs } = connect(server);
  await until(() => client.currentStatus.state === 'open');
  server.emitRaw('event: stream.gap\ndata: {"requested":3,"oldest":90}\n\n');
  await until(() => resyncs.length === 1);
  assert.deepEqual(resyncs, ['gap']);
});

test('event stream: a connection with no event and no heartbeat is replaced', async () => {
  const server = await serve();
  server.silent = true;
  const { statuses } = connect(server, { idleTimeoutMs: 100 });
  await until(() => server.lastEventIds.length >= 2, 3000, 'a second connection');
  assert.ok(
    statuses.some((s) => /no event or heartbeat/.test(s.error ?? '')),
    'the silent connection was dropped for its silence',
  );
});

test('event stream: stop() ends the stream and no reconnect follows', async () => {
  const server = await serve();
  const { client } = connect(server);
  await until(() => client.currentStatus.state === 'open');
  client.stop();
  server.dropConnections();
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(server.lastEventIds.length, 1);
});
