import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { AppQueries } from '../../main/store/appQueries.js';
import type { TurnRecord } from '../../main/store/turnStore.js';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { storedTurn } from '../helpers/ratedTurn.js';
import { startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

const SESSIONS = 300;

/** Issue 41, finding 8: the JSON Lines export follows the client's pace and leaves the server free. */
describe('issue 41: the sessions export is streamed with backpressure', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ engine: new FakeEngine([]) });
    const prompt = 'p'.repeat(60_000); // 300 sessions × 60 kB: far more than a socket's buffers hold
    t.db.transaction(() => {
      for (let i = 0; i < SESSIONS; i++) {
        const session = `export-${i}`;
        const ep = t.store.openSession(session, Date.now());
        t.store.insertTurn(turn(`turn-${i}`, session, prompt, i % 3 ? 'keep' : 'skip'), ep);
      }
    })();
  });
  after(() => t.close());

  it('8: a client that reads nothing holds the export back; other requests are answered meanwhile; all lines arrive once it reads', async () => {
    let read = 0;
    const sessionTurns = t.store.sessionTurns.bind(t.store);
    t.store.sessionTurns = (id) => {
      read++;
      return sessionTurns(id);
    };
    try {
      const socket = net.connect(t.server.port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      socket.pause();
      socket.write('GET /api/export/sessions.jsonl HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      await waitFor(() => read > 0, 'the export started');
      assert.equal((await fetch(`${t.origin}/healthz`)).status, 200);
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(read < SESSIONS, `${read} of ${SESSIONS} sessions were read while the client read nothing`);
      const body = await readBody(socket);
      const lines = body.trim().split('\n');
      assert.equal(lines.length, SESSIONS);
      assert.deepEqual(JSON.parse(lines.at(-1)!).session_id, `export-${SESSIONS - 1}`);
    } finally {
      t.store.sessionTurns = sessionTurns;
    }
  });

  it('8: a filtered export searches one session at a time as the client reads, not every turn before the first line', async () => {
    const searched: Array<string | undefined> = [];
    const turnIds = AppQueries.prototype.turnIds;
    AppQueries.prototype.turnIds = function (f) {
      searched.push(f.sessionId);
      return turnIds.call(this, f);
    };
    try {
      const socket = net.connect(t.server.port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      socket.pause();
      socket.write('GET /api/export/sessions.jsonl?q=marker-keep HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      await waitFor(() => searched.length > 0, 'the export started');
      assert.equal((await fetch(`${t.origin}/healthz`)).status, 200);
      await new Promise((r) => setTimeout(r, 1000));
      const sessionsSearched = searched.includes(undefined) ? SESSIONS : searched.length;
      assert.ok(sessionsSearched < SESSIONS, `${sessionsSearched} of ${SESSIONS} sessions were searched while the client read nothing`);
      const body = await readBody(socket);
      const ids = body
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { session_id: string }).session_id);
      const expected = t.store
        .sessions()
        .map((x) => x.id)
        .filter((id) => Number(id.slice('export-'.length)) % 3);
      assert.deepEqual(ids, expected, "exactly the sessions whose turns match, in the store's order");
    } finally {
      AppQueries.prototype.turnIds = turnIds;
    }
  });
});

/** The body of a chunked HTTP/1.1 response. */
/** Resumes a paused socket and reads the rest of its chunked HTTP response: the body, de-chunked. */
async function readBody(socket: net.Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (d: Buffer) => chunks.push(d));
  const ended = new Promise((r) => socket.once('end', r));
  socket.resume();
  await ended;
  return dechunk(Buffer.concat(chunks).toString('utf8').split('\r\n\r\n').slice(1).join('\r\n\r\n'));
}

function dechunk(text: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const eol = text.indexOf('\r\n', i);
    const size = parseInt(text.slice(i, eol), 16);
    if (!size) return out;
    out += text.slice(eol + 2, eol + 2 + size);
    i = eol + 2 + size + 2;
  }
}

function turn(id: string, sessionId: string, prompt: string, marker: string): TurnRecord {
  return storedTurn({
    id,
    sessionId,
    requestMessages: [{ role: 'user', content: `marker-${marker}` }],
    promptText: prompt,
    promptIds: [1],
    responseIds: [2],
    responseLogprobs: [-1],
    promptTokens: 1,
    completionTokens: 1,
  });
}
