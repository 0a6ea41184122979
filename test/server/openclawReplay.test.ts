import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../../main/cli/main.js';
import type { ChatCompletionChunk } from '../../main/protocol/openai.js';
import type { ExportedSession } from '../../main/store/exportSessions.js';
import { FIXTURES } from '../helpers/paths.js';
import { longContextModel, readSse, startTestServer, type TestServer } from '../helpers/testServer.js';

interface Recorded {
  name: string;
  headers: Record<string, string>;
  body: { messages: unknown[] };
}
const fixture = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'openclaw', 'requests.json'), 'utf8')) as {
  session_id: string;
  requests: Recorded[];
};
const S = fixture.session_id;

describe('replay of OpenClaw requests A–E (docs/openclaw.md, the recorded requests)', () => {
  let t: TestServer;
  const ids: Record<string, string> = {};
  before(async () => {
    t = await startTestServer({
      modelPath: longContextModel('qwen3-qknorm', 4096),
      options: { apiKey: 'sk-local', servedModelName: 'qwen3-4b' },
    });
    for (const r of fixture.requests) {
      const res = await fetch(`${t.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...r.headers },
        body: JSON.stringify(r.body),
      });
      assert.equal(res.status, 200, `${r.name}: ${res.status}`);
      const { events, done } = await readSse(res);
      assert.ok(done, `${r.name} stream ends with [DONE]`);
      const chunks = events as ChatCompletionChunk[];
      assert.ok(chunks.at(-1)!.usage, `${r.name} ends with a usage chunk`);
      assert.ok(['stop', 'length', 'tool_calls'].includes(chunks.at(-2)!.choices[0].finish_reason!));
      ids[r.name] = chunks[0].id;
    }
  });
  after(() => t.close());

  it('stores main and side turns, with and without a session', () => {
    const turns = Object.fromEntries(Object.entries(ids).map(([k, id]) => [k, t.store.getTurn(id)!]));
    assert.deepEqual(
      Object.values(turns).map((x) => [x.type, x.sessionId]),
      [
        ['main', S],
        ['main', S],
        ['main', S],
        ['side', S],
        ['side', null],
      ],
    );
    assert.equal(turns.A.model, 'qwen3-4b');
    assert.deepEqual(turns.B.requestMessages, fixture.requests[1].body.messages, 'request messages are stored as received');
    assert.ok(turns.B.promptText.includes('"name": "edit"'), 'the rendered prompt holds the tools');
    assert.ok(turns.C.promptText.endsWith('<|im_start|>assistant\n'));
  });

  it("links next states: A gets B's user message, B gets C's last tool message; C, D and E stay unlinked", () => {
    const get = (k: string) => t.store.getTurn(ids[k])!;
    assert.deepEqual([get('A').nextState!.role, get('A').nextState!.text], ['user', "Add 'book dentist' and show me the file."]);
    assert.deepEqual([get('B').nextState!.role, get('B').nextState!.text], ['tool', '- buy milk\n- call Bob\n- book dentist']);
    assert.equal(get('C').nextState, null, 'the side heartbeat D is not a next state');
    assert.equal(get('D').nextState, null);
    assert.equal(get('E').nextState, null);
  });

  it('exports one JSON line per session, E under "unknown"', async () => {
    const out = path.join(t.dataDir, 'export.jsonl');
    let log = '';
    const code = await main(['export', '--data-dir', t.dataDir, '--out', out], { out: () => {}, log: (l) => (log += l) });
    assert.equal(code, 0, log);
    const lines = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ExportedSession);
    assert.deepEqual(
      lines.map((l) => l.session_id),
      [S, 'unknown'],
    );
    assert.deepEqual(
      lines[0].turns.map((x) => [x.type, x.trainable, x.next_state]),
      [
        ['main', true, "Add 'book dentist' and show me the file."],
        ['main', true, '- buy milk\n- call Bob\n- book dentist'],
        ['main', false, null],
        ['side', false, null],
      ],
    );
    assert.deepEqual(Object.keys(lines[0].turns[0]).sort(), ['next_state', 'prompt', 'response', 'trainable', 'type']);
    assert.equal(lines[0].turns[1].prompt, t.store.getTurn(ids.B)!.promptText);
    assert.equal(lines[1].turns.length, 1);
    assert.match(log, /wrote 2 session\(s\), 5 turn\(s\)/);
  });
});
