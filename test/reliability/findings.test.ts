import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { TrainingConfig, TrainingStatus } from '../../main/protocol/training.js';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { api, chat, postJson, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

type Err = { error: { message: string; code: string; param: string | null } };

/** Regression tests for issue 15's findings (1, 2, 4, 7 and 11 have their own files in this folder). */
describe('issue 15 findings without a trainer', () => {
  let t: TestServer;
  let engine: FakeEngine;
  before(async () => {
    engine = new FakeEngine([]);
    t = await startTestServer({ engine });
  });
  after(() => t.close());

  it('8: the body limit follows the model’s context, and a prompt that cannot fit is refused before the worker sees it', async () => {
    assert.equal(t.server.options.maxBodyBytes, 1024 * 1024); // 4,096 tokens × 64 bytes < 1 MiB, so 1 MiB
    const huge = await postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content: 'x'.repeat(2 * 1024 * 1024) }] });
    assert.equal(huge.status, 413);
    const before = engine.requests.length;
    const long = await postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content: 'y'.repeat(4096 * 16 + 1) }] });
    assert.equal(long.status, 400);
    const body = (await long.json()) as Err;
    assert.equal(body.error.code, 'context_length_exceeded');
    assert.match(body.error.message, /maximum context length is 4096 tokens/);
    assert.equal(engine.requests.length, before, 'the engine never saw it');
  });

  it('9: a stream to a client that sent Connection: close ends the connection right after [DONE]', async () => {
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'x' }], stream: true });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(t.server.port, '127.0.0.1', () =>
        socket.write(
          `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        ),
      );
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.setTimeout(10_000, () => reject(new Error('the server kept the connection open after [DONE]')));
    });
    assert.match(answer, /^connection: close/im);
    assert.match(answer, /data: \[DONE\]/);
  });
});

describe('issue 15 findings with a trainer', () => {
  let t: TestServer;
  before(async () => (t = await startTestServer({ train: { method: 'rl', batch_size: 1, max_staleness: 0 } })));
  after(() => t.close());
  const config = async () => (await api<TrainingConfig>(t, 'GET', '/api/training/config')).body;

  it('3: a judge folder that is not a model is a 400, the old settings stay in force and the next change does not store it', async () => {
    const before = await config();
    const bad = await api<Err>(t, 'PUT', '/api/training/config', {
      judge: { kind: 'model', dir: path.join(t.dataDir, 'no-such-model') },
      batch_size: 3,
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.param, 'judge');
    assert.match(bad.body.error.message, /the judge cannot be used: .*; the settings are unchanged/);
    assert.deepEqual(await config(), before);
    assert.equal((await api(t, 'PUT', '/api/training/config', { learning_rate: 0.002 })).status, 200);
    const stored = t.learn.trainerState().config!;
    assert.deepEqual([stored.judge, stored.batch_size, stored.learning_rate], [{ kind: 'base' }, before.batch_size, 0.002]);
  });

  it('3: a stored judge that no longer loads never stops the server: it starts with the base judge and says why', async () => {
    const stored = { ...t.learn.trainerState().config!, judge: { kind: 'model', dir: path.join(t.dataDir, 'moved-away') } };
    t.db.prepare('UPDATE trainer_state SET config = ? WHERE id = 1').run(JSON.stringify(stored));
    const dataDir = t.dataDir;
    await t.close(true);
    t = await startTestServer({ train: {}, dataDir });
    const status = (await api<TrainingStatus>(t, 'GET', '/api/training/status')).body;
    assert.match(status.error ?? '', /the configured judge does not load .*judging with the base model/);
    assert.deepEqual((await config()).judge, { kind: 'base' });
    const events = t.db.prepare("SELECT data FROM events WHERE name = 'error'").all() as Array<{ data: string }>;
    assert.ok(
      events.some((e) => /configured judge does not load/.test(e.data)),
      'an error event says so',
    );
  });

  it("3: a stored judge inside another model's folder gives way to the served model's recommended judge, with no error", async () => {
    // Settings made with the bundled model name its own judge folder; this model has none.
    const stored = { ...t.learn.trainerState().config!, judge: { kind: 'model', dir: 'judge' } };
    t.db.prepare('UPDATE trainer_state SET config = ? WHERE id = 1').run(JSON.stringify(stored));
    const dataDir = t.dataDir;
    await t.close(true);
    t = await startTestServer({ train: {}, dataDir });
    const status = (await api<TrainingStatus>(t, 'GET', '/api/training/status')).body;
    assert.equal(status.error ?? '', '');
    assert.deepEqual((await config()).judge, { kind: 'base' });
    assert.deepEqual(t.learn.trainerState().config!.judge, { kind: 'base' }, 'and it is stored');
  });

  it('6: a judge endpoint must be http(s), and its key is never returned', async () => {
    const file = await api<Err>(t, 'PUT', '/api/training/config', { judge: { kind: 'endpoint', url: 'file:///etc/passwd', model: 'm' } });
    assert.deepEqual([file.status, file.body.error.param], [400, 'judge.url']);
    // An endpoint judge is only checked when it is used, so this one (nothing listens there) is accepted.
    const ok = await api<TrainingConfig>(t, 'PUT', '/api/training/config', {
      judge: { kind: 'endpoint', url: 'http://127.0.0.1:9/v1', model: 'm', api_key: 'sk-secret-1234' },
    });
    assert.equal(ok.status, 200);
    const j = (await config()).judge as { api_key: string };
    assert.equal(j.api_key, '****1234');
    assert.ok(!JSON.stringify(await config()).includes('sk-secret'));
    // Saving the form back with the masked key keeps the real one.
    await api(t, 'PUT', '/api/training/config', {
      judge: { kind: 'endpoint', url: 'http://127.0.0.1:9/v1', model: 'm', api_key: '****1234' },
    });
    assert.equal((t.learn.trainerState().config!.judge as { api_key: string }).api_key, 'sk-secret-1234');
    if (process.platform !== 'win32') assert.equal(fs.statSync(path.join(t.dataDir, 'clawloop.db')).mode & 0o777, 0o600);
    await api(t, 'PUT', '/api/training/config', { judge: { kind: 'base' } });
  });

  it('10: feedback on a turn generated many versions ago still trains (re-scored, not dropped)', async () => {
    const old = await chat(t, 'an old question', { session: 'stale', type: 'main' });
    await api(t, 'POST', '/api/training/pause');
    for (let i = 0; i < 3; i++) await api(t, 'POST', '/api/checkpoints/base/rollback'); // versions move on
    await api(t, 'POST', '/v1/feedback', { completion_id: old.id, rating: 'up' });
    await api(t, 'POST', '/api/training/resume');
    const sample = await waitFor(
      () => t.learn.samplesOfTurn(old.id).find((s) => s.status === 'trained' || s.status === 'dropped'),
      'the sample settled',
    );
    assert.equal(sample.status, 'trained', `dropped: ${sample.dropReason}`);
    assert.ok(
      t.learn.samplesOfTurn(old.id)[0].adapterVersion <
        (await api<TrainingStatus>(t, 'GET', '/api/training/status')).body.adapter_version - 1,
    );
  });

  it('12: rolling back to a listed checkpoint whose folder is gone is a 409 that says so', async () => {
    const id = (await api<{ data: Array<{ id: string }> }>(t, 'GET', '/api/checkpoints')).body.data[0].id;
    fs.rmSync(path.join(t.dataDir, 'checkpoints', id), { recursive: true, force: true });
    const r = await api<Err>(t, 'POST', `/api/checkpoints/${id}/rollback`);
    assert.equal(r.status, 409);
    assert.match(r.body.error.message, /listed but its folder .* is gone/);
  });
});
