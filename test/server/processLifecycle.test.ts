import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../main/store/database.js';
import { TurnStore } from '../../main/store/turnStore.js';
import { exited, startServe } from '../helpers/serveProcess.js';
import { longContextModel, postJson, readFrames, readSse } from '../helpers/testServer.js';

describe('clawloop serve as a process', () => {
  it('SIGKILL mid-stream loses only the turn in flight; a restart on the same data dir finds every completed turn', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-crash-'));
    const model = longContextModel('llama-gqa', 4096);
    const headers = { 'x-session-id': 'crash-session', 'x-turn-type': 'main' };
    const first = await startServe(model, dataDir);
    const completed: Array<{ id: string; content: string; tokens: number }> = [];
    for (const content of ['one', 'two']) {
      const r = (await (
        await postJson(`${first.url}/chat/completions`, { messages: [{ role: 'user', content }], max_tokens: 6 }, headers)
      ).json()) as {
        id: string;
        choices: Array<{ message: { content: string } }>;
        usage: { completion_tokens: number };
      };
      completed.push({ id: r.id, content: r.choices[0].message.content, tokens: r.usage.completion_tokens });
    }
    // A stop string that never appears and no EOS in reach: the generation runs until killed.
    const stream = await postJson(
      `${first.url}/chat/completions`,
      { messages: [{ role: 'user', content: 'three' }], max_tokens: 3000, stream: true, temperature: 1, seed: 7 },
      headers,
    );
    const reader = stream.body!.getReader();
    const { ended } = await readFrames(reader, 4);
    assert.equal(ended, false, 'the stream is still running when the server is killed');
    first.child.kill('SIGKILL');
    await exited(first.child);
    await reader.cancel().catch(() => {});

    const second = await startServe(model, dataDir);
    const db = openDatabase(path.join(dataDir, 'clawloop.db'));
    const turns = new TurnStore(db).sessionTurns('crash-session');
    assert.deepEqual(
      turns.map((t) => t.id),
      completed.map((c) => c.id),
      'both completed turns survive; the one in flight is gone',
    );
    turns.forEach((t, i) => {
      assert.equal(t.responseText, completed[i].content);
      // Sampled at the default temperature, a turn may end on EOS before max_tokens.
      assert.equal(t.responseIds.length, completed[i].tokens);
      assert.equal(t.responseLogprobs.length, completed[i].tokens);
      assert.ok(completed[i].tokens >= 1 && completed[i].tokens <= 6);
    });
    assert.equal(turns[0].nextState!.text, 'two', 'turn one was linked to request two before the crash');
    assert.equal(turns[1].nextState!.text, 'three', 'turn two was linked when request three arrived');
    db.close();
    // The restarted server keeps serving and recording.
    const r = await postJson(`${second.url}/chat/completions`, { messages: [{ role: 'user', content: 'four' }], max_tokens: 3 }, headers);
    assert.equal(r.status, 200);
    second.child.kill('SIGTERM');
    assert.equal(await exited(second.child), 0);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGTERM lets the request in flight finish, closes the database and exits 0', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-term-'));
    const s = await startServe(longContextModel('llama-gqa', 2048), dataDir);
    const pending = postJson(`${s.url}/chat/completions`, {
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 400,
      stream: true,
      temperature: 1,
      seed: 3,
    });
    const res = await pending;
    s.child.kill('SIGTERM');
    const { done } = await readSse(res);
    assert.ok(done, 'the stream in flight completed');
    assert.equal(await exited(s.child), 0);
    assert.match(s.stderr(), /SIGTERM: shutting down; new requests are refused, requests in flight finish[\s\S]*database closed/);
    const db = openDatabase(path.join(dataDir, 'clawloop.db'));
    assert.equal(new TurnStore(db).turnCount(), 1);
    db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
