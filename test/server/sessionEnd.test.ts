import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TrainingConfig, TrainingStatus } from '../../main/protocol/training.js';
import { modelTrainingDefaults, TRAINING_DEFAULTS_FILE } from '../../main/rl/trainingConfig.js';
import { api, chat, longContextModel, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

type Err = { error: { message: string; param: string | null; code: string } };

describe("POST /api/sessions/{id}/end and a model folder's recommended training settings", () => {
  let t: TestServer;
  let model: string;

  before(async () => {
    model = longContextModel('qwen3-qknorm', 1024);
    fs.writeFileSync(path.join(model, TRAINING_DEFAULTS_FILE), JSON.stringify({ learning_rate: 0.003, batch_size: 3, lora_rank: 4 }));
    // Training paused so the judged state of turns can be observed before the trainer takes them.
    t = await startTestServer({ modelPath: model, train: { method: 'rl' } });
    assert.equal((await api(t, 'POST', '/api/training/pause')).status, 200);
  });
  after(async () => {
    await t.close();
    fs.rmSync(model, { recursive: true, force: true });
  });

  it("a fresh data folder starts from the model folder's clawloop_training.json; flags still win", async () => {
    const cfg = (await api<TrainingConfig>(t, 'GET', '/api/training/config')).body;
    assert.equal(cfg.learning_rate, 0.003);
    assert.equal(cfg.batch_size, 3);
    assert.equal(cfg.lora_rank, 4);
    assert.equal(cfg.method, 'rl'); // the command-line patch
  });

  it('links the final message as the next state of the last main turn, ends the session and counts it as pending', async () => {
    const a = await chat(t, 'first question', { session: 'end-me', type: 'main' });
    const b = await chat(t, 'second question', { session: 'end-me', type: 'main' });
    const r = await api<{ id: string; ended: boolean; next_state_of: string | null }>(t, 'POST', '/api/sessions/end-me/end', {
      message: { role: 'user', content: [{ type: 'text', text: 'perfect, thanks!' }] },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { id: 'end-me', ended: true, next_state_of: b.id });
    const turn = t.store.getTurn(b.id)!;
    assert.equal(turn.nextState?.role, 'user');
    assert.equal(turn.nextState?.text, 'perfect, thanks!');
    assert.equal(t.store.getTurn(a.id)!.nextState?.text, 'second question');
    const session = (await api<{ ended_at: number | null; end_reason: string }>(t, 'GET', '/api/sessions/end-me')).body;
    assert.ok(session.ended_at);
    assert.equal(session.end_reason, 'done');
    const st = (await api<TrainingStatus>(t, 'GET', '/api/training/status')).body;
    assert.equal(st.pending_turns, 2);
  });

  it('answers 409 for an ended session, 404 for an unknown one, 400 for a bad body; an empty body just ends it', async () => {
    assert.equal((await api<Err>(t, 'POST', '/api/sessions/end-me/end', {})).status, 409);
    const unknown = await api<Err>(t, 'POST', '/api/sessions/nope/end', {});
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error.message, /no session 'nope'/);
    await chat(t, 'hello', { session: 'other', type: 'main' });
    const bad = await api<Err>(t, 'POST', '/api/sessions/other/end', { message: { role: 'assistant', content: 'x' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.param, 'message.role');
    const extra = await api<Err>(t, 'POST', '/api/sessions/other/end', { mesage: {} });
    assert.equal(extra.status, 400);
    assert.match(extra.body.error.message, /unknown field 'mesage'/);
    assert.equal((await api(t, 'GET', '/api/sessions/other/end')).status, 405);
    const res = await fetch(`${t.origin}/api/sessions/other/end`, { method: 'POST' });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { next_state_of: string | null }).next_state_of, null);
  });

  it('the trainer takes the pending turns once resumed', async () => {
    assert.equal((await api(t, 'POST', '/api/training/resume')).status, 200);
    await waitFor(
      async () => (await api<TrainingStatus>(t, 'GET', '/api/training/status')).body.pending_turns === 0,
      'pending turns judged',
      60_000,
    );
  });

  it('a bad clawloop_training.json is reported with the file and the field', () => {
    const dir = longContextModel('qwen3-qknorm', 256);
    try {
      fs.writeFileSync(path.join(dir, TRAINING_DEFAULTS_FILE), JSON.stringify({ learning_rate: -1 }));
      assert.throws(() => modelTrainingDefaults(dir), /clawloop_training\.json: invalid training configuration: learning_rate/);
      fs.writeFileSync(path.join(dir, TRAINING_DEFAULTS_FILE), '{ nope');
      assert.throws(() => modelTrainingDefaults(dir), /clawloop_training\.json: not valid JSON/);
      fs.rmSync(path.join(dir, TRAINING_DEFAULTS_FILE));
      assert.equal(modelTrainingDefaults(dir).learning_rate, 1e-4);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
