import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import type { CheckpointInfo, RollbackVersion } from '../../main/protocol/checkpoints.js';
import { DEFAULT_TRAINING_CONFIG, type TrainingConfig, type TrainingStatus } from '../../main/protocol/training.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { logprobScale, logprobsModel } from '../helpers/modelTolerance.js';
import { closeness, tolerance } from '../helpers/numeric.js';
import { modelDir } from '../helpers/paths.js';
import { api, chat, longContextModel, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

type Err = { error: { message: string; param: string | null; code: string } };

describe('training API: steps, checkpoints, rollback, configuration, feedback rules', () => {
  let t: TestServer;
  let n = 0;
  const status = async () => (await api<TrainingStatus>(t, 'GET', '/api/training/status')).body;
  /** Two rated turns (one 👍, one 👎) make one step at batch size 2. */
  async function step(): Promise<TrainingStatus> {
    const before = (await status()).step;
    for (const rating of ['up', 'down']) {
      const c = await chat(t, `question ${n++}`, { session: `s${n}`, type: 'main', maxTokens: 3 });
      assert.equal((await api(t, 'POST', '/v1/feedback', { completion_id: c.id, rating })).status, 200);
    }
    return waitFor(
      async () => {
        const s = await status();
        return s.step > before && s.state !== 'training' ? s : null;
      },
      `step ${before + 1}`,
    );
  }
  /** The first-token distribution of a fixed prompt (the top 20, in rank order), and the version that served it. */
  async function probe() {
    const c = await chat(t, 'fixed probe', { maxTokens: 1, logprobs: true, temperature: 0 });
    const top = c.body.choices[0].logprobs!.content[0].top_logprobs.map((e) => ({ bytes: JSON.stringify(e.bytes), logprob: e.logprob }));
    return { version: c.version, top };
  }
  type Top = Awaited<ReturnType<typeof probe>>['top'];
  // The same tokens in the same order, and log-probs within the tolerance of a LoRA forward pass
  // over a prompt within the fixture's 256 positions.
  const config = fixtureConfig('qwen3-qknorm');
  const probeTol = tolerance(logprobsModel(config, config.maxPositions, { loraRank: DEFAULT_TRAINING_CONFIG.lora_rank }));
  const sameDistribution = (a: Top, b: Top) => {
    if (a.length !== b.length || a.some((e, i) => e.bytes !== b[i].bytes)) return false;
    const want = b.map((e) => e.logprob);
    const got = a.map((e) => e.logprob);
    const error = closeness(got, want).maxAbs;
    return error <= probeTol.rtol * logprobScale(config, want);
  };

  before(async () => {
    t = await startTestServer({
      modelPath: longContextModel('qwen3-qknorm', 2048),
      train: { method: 'rl', batch_size: 2, learning_rate: 0.05, keep_checkpoints: 3, max_staleness: null },
    });
  });
  after(() => t.close());

  const probes = new Map<number, Awaited<ReturnType<typeof probe>>>();

  it('each step makes a checkpoint and a new adapter version, served from the next request on', async () => {
    assert.equal((await probe()).version, 0);
    const s1 = await step();
    assert.deepEqual([s1.step, s1.adapter_version], [1, 1]);
    assert.equal(s1.last_step!.samples!.total, 2);
    for (const k of [
      'loss',
      'pg_loss',
      'kl',
      'clip_fraction',
      'entropy',
      'mean_reward',
      'logprob_drift',
      'grad_norm',
      'step_ms',
      'tokens',
    ] as const) {
      assert.ok(k in s1.last_step!, `metric ${k}`);
    }
    const s2 = await step();
    assert.equal(s2.adapter_version, 2);
    probes.set(2, await probe());
    assert.equal(probes.get(2)!.version, 2);
  });

  it('lists checkpoints with their metrics; pins one', async () => {
    const list = (await api<{ data: CheckpointInfo[]; live_checkpoint: string }>(t, 'GET', '/api/checkpoints')).body;
    assert.deepEqual(
      list.data.map((c) => [c.id, c.step, c.adapter_version, c.parent_id]),
      [
        ['step-000001', 1, 1, null],
        ['step-000002', 2, 2, 'step-000001'],
      ],
    );
    assert.equal(list.live_checkpoint, 'step-000002');
    for (const k of ['id', 'step', 'adapter_version', 'created_at', 'metrics', 'samples', 'pinned'] as const) assert.ok(k in list.data[0]);
    assert.deepEqual((await api(t, 'POST', '/api/checkpoints/step-000001/pin')).body, { checkpoint: 'step-000001', pinned: true });
    assert.equal((await api(t, 'POST', '/api/checkpoints/nope/pin')).status, 404);
  });

  it('names a checkpoint and keeps a note on it; a field left out stays, "" clears it', async () => {
    const label = (body: unknown) => api<{ name: string | null; note: string | null }>(t, 'PATCH', '/api/checkpoints/step-000001', body);
    assert.deepEqual((await label({ name: ' before units ', note: 'Answers were long.' })).body, {
      checkpoint: 'step-000001',
      name: 'before units',
      note: 'Answers were long.',
    });
    assert.deepEqual((await label({ note: '' })).body, { checkpoint: 'step-000001', name: 'before units', note: null });
    const listed = (await api<{ data: CheckpointInfo[] }>(t, 'GET', '/api/checkpoints')).body.data.find((c) => c.id === 'step-000001')!;
    assert.deepEqual([listed.name, listed.note], ['before units', null]);
    assert.equal((await label({ name: 'x'.repeat(61) })).status, 400);
    assert.equal((await api(t, 'PATCH', '/api/checkpoints/nope', { name: 'a' })).status, 404);
  });

  it('feedback is refused (409) once its turn was trained on', async () => {
    const trainedTurn = t.learn.turns.sessions().find((s) => s.id === 's1')!;
    const turn = t.learn.turns.sessionTurns(trainedTurn.id)[0];
    const r = await api<Err>(t, 'POST', '/v1/feedback', { completion_id: turn.id, rating: 'down' });
    assert.equal(r.status, 409);
    assert.match(r.body.error.message, /trained on in step 1/);
  });

  it("rolling back to checkpoint k serves k's exact log-probs as a new version; the next step starts from k", async () => {
    await step();
    await step();
    const p4 = await probe();
    assert.equal(p4.version, 4);
    assert.ok(!sameDistribution(p4.top, probes.get(2)!.top), 'training moved the distribution');
    const rb = await api<{ adapter_version: number; checkpoint: string }>(t, 'POST', '/api/checkpoints/step-000002/rollback');
    assert.equal(rb.status, 200);
    assert.deepEqual(rb.body, { checkpoint: 'step-000002', adapter_version: 5 });
    const after = await probe();
    assert.equal(after.version, 5, 'a rollback is a new version: versions never go back');
    assert.ok(sameDistribution(after.top, probes.get(2)!.top), 'the rolled-back adapter gives the log-probs recorded at step 2');
    const s = await step();
    assert.equal(s.adapter_version, 6);
    const body = (await api<{ data: CheckpointInfo[]; rollbacks: RollbackVersion[] }>(t, 'GET', '/api/checkpoints')).body;
    const list = body.data;
    assert.equal(list.find((c) => c.id === 'step-000005')!.parent_id, 'step-000002');
    // The list names the rollback's version too, so every version an answer names is on it.
    assert.deepEqual(
      body.rollbacks.map((r) => [r.version, r.checkpoint_id]),
      [[5, 'step-000002']],
    );
    // The optimizer state came back with the checkpoint: two moments steps, then this one.
    const opt = fs.readFileSync(path.join(t.dataDir, 'checkpoints', 'step-000005', 'optimizer.safetensors'));
    assert.match(opt.toString('latin1', 0, 400), /"step":"3"/);
  });

  it('retention keeps the newest K plus pinned checkpoints and deletes the others from disk', async () => {
    const ids = (await api<{ data: CheckpointInfo[] }>(t, 'GET', '/api/checkpoints')).body.data.map((c) => c.id);
    assert.deepEqual(ids, ['step-000001', 'step-000003', 'step-000004', 'step-000005']);
    assert.ok(!fs.existsSync(path.join(t.dataDir, 'checkpoints', 'step-000002')));
    assert.ok(fs.existsSync(path.join(t.dataDir, 'checkpoints', 'step-000001', 'adapter_model.safetensors')));
  });

  it('exports a checkpoint as a PEFT adapter folder that loads and equals the checkpoint', async () => {
    const out = path.join(t.dataDir, 'exports', 'exported');
    const r = await api<{ dir: string; files: string[] }>(t, 'POST', '/api/checkpoints/step-000005/export', { dir: 'exported' });
    assert.equal(r.status, 200);
    assert.equal(r.body.dir, fs.realpathSync(out));
    assert.equal(
      JSON.parse(fs.readFileSync(path.join(out, 'adapter_config.json'), 'utf8')).base_model_name_or_path,
      path.basename(t.engine.info.dir),
    );
    const model = await Model.load(modelDir('qwen3-qknorm'));
    const a = LoraAdapter.load(out, model.config);
    const b = LoraAdapter.load(path.join(t.dataDir, 'checkpoints', 'step-000005'), model.config);
    for (const [name, v] of a.variables()) assert.deepEqual(v.dataSync(), b.variables().get(name)!.dataSync());
    a.dispose();
    b.dispose();
    model.dispose();
    // Outside the data folder's exports/ (and no --export-dir): refused, nothing written.
    const outside = path.join(os.tmpdir(), `clawloop-export-${process.pid}`);
    assert.equal((await api(t, 'POST', '/api/checkpoints/step-000005/export', { dir: outside })).status, 400);
    assert.ok(!fs.existsSync(outside));
  });

  it('configuration: validated field by field; LoRA shape changes need the base model; GET shows the merge', async () => {
    for (const [body, field] of [
      [{ batch_size: 0 }, 'batch_size'],
      [{ method: 'sft' }, 'method'],
      [{ learning_rate: -1 }, 'learning_rate'],
      [{ bogus: 1 }, 'bogus'],
      [{ judge: { kind: 'endpoint', url: 'not a url', model: 'm' } }, 'judge.url'],
    ] as const) {
      const r = await api<Err>(t, 'PUT', '/api/training/config', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.param, field);
      assert.match(r.body.error.message, new RegExp(field.replace('.', '\\.')));
    }
    const shape = await api<Err>(t, 'PUT', '/api/training/config', { lora_rank: 4 });
    assert.equal(shape.status, 409);
    assert.equal(shape.body.error.param, 'lora_rank');
    const ok = await api<TrainingConfig>(t, 'PUT', '/api/training/config', { batch_size: 100, opd_clip: 1 });
    assert.equal(ok.status, 200);
    assert.deepEqual([ok.body.batch_size, ok.body.opd_clip, ok.body.method], [100, 1, 'rl']);
    assert.equal((await api<TrainingConfig>(t, 'GET', '/api/training/config')).body.batch_size, 100);
  });

  it('feedback can change until the turn is trained on: the sample is rebuilt', async () => {
    const c = await chat(t, 'change my mind', { session: 'mind', type: 'main' });
    await api(t, 'POST', '/v1/feedback', { completion_id: c.id, rating: 'up' });
    await waitFor(() => t.learn.samplesOfTurn(c.id)[0]?.reward === 1, 'the 👍 sample');
    const r = await api<{ rating: string; hint: string | null }>(t, 'POST', '/v1/feedback', { completion_id: c.id, rating: 'down' });
    assert.deepEqual([r.status, r.body.rating], [200, 'down']);
    await waitFor(() => t.learn.samplesOfTurn(c.id)[0]?.reward === -1, 'the rebuilt 👎 sample');
    assert.equal(t.learn.samplesOfTurn(c.id).length, 1);
    // Leaving a field out keeps it; null clears it.
    const h = await api<{ rating: string; hint: string | null }>(t, 'POST', '/v1/feedback', { completion_id: c.id, hint: 'be brief' });
    assert.deepEqual([h.body.rating, h.body.hint], ['down', 'be brief']);
    const cleared = await api<{ rating: string | null; hint: string | null }>(t, 'POST', '/v1/feedback', {
      completion_id: c.id,
      rating: null,
      hint: null,
    });
    assert.deepEqual([cleared.body.rating, cleared.body.hint], [null, null]);
  });

  it('feedback errors: unknown id 404, malformed 400 naming the field', async () => {
    const unknown = await api<Err>(t, 'POST', '/v1/feedback', { completion_id: 'chatcmpl-nope', rating: 'up' });
    assert.deepEqual([unknown.status, unknown.body.error.param], [404, 'completion_id']);
    for (const [body, field] of [
      [{ rating: 'up' }, 'completion_id'],
      [{ completion_id: 'x', rating: 'meh' }, 'rating'],
      [{ completion_id: 'x', hint: 7 }, 'hint'],
      [{ completion_id: 'x', thumbs: 'up' }, 'thumbs'],
    ] as const) {
      const r = await api<Err>(t, 'POST', '/v1/feedback', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.param, field);
    }
  });

  it('pause stops all training work; resume picks it up', async () => {
    await api(t, 'PUT', '/api/training/config', { batch_size: 2 });
    // The yardstick: how long two rated turns take to be judged and trained on here, unpaused.
    const t0 = performance.now();
    await step();
    const unpaused = performance.now() - t0;
    const paused = await api<TrainingStatus>(t, 'POST', '/api/training/pause');
    assert.equal(paused.body.state, 'paused');
    const before = (await status()).step;
    const ids: string[] = [];
    for (const rating of ['up', 'down']) {
      const c = await chat(t, `paused ${rating}`, { session: `p-${rating}`, type: 'main', maxTokens: 3 });
      ids.push(c.id);
      assert.equal((await api(t, 'POST', '/v1/feedback', { completion_id: c.id, rating })).status, 200);
    }
    // The same work gets three times as long as it took unpaused, and must not happen.
    await new Promise((r) => setTimeout(r, Math.max(3 * unpaused, 500)));
    assert.equal((await status()).step, before, 'no step while paused');
    assert.deepEqual(
      ids.map((id) => t.learn.samplesOfTurn(id).length),
      [0, 0],
      'no judging while paused either',
    );
    assert.notEqual((await api<TrainingStatus>(t, 'POST', '/api/training/resume')).body.state, 'paused');
    await waitFor(async () => (await status()).step > before, 'a step after resuming');
    await waitFor(() => ids.every((id) => t.learn.samplesOfTurn(id).length > 0), 'the turns held while paused to be judged');
  });

  it('metrics since a step; sessions with feedback, samples and rewards', async () => {
    const m = (await api<{ data: Array<{ step: number; loss: number }> }>(t, 'GET', '/api/metrics?since=3')).body.data;
    assert.ok(m.length >= 3 && m.every((x) => x.step > 3 && Number.isFinite(x.loss)));
    assert.equal((await api(t, 'GET', '/api/metrics?since=-1')).status, 400);
    const sessions = (await api<{ data: Array<{ id: string }> }>(t, 'GET', '/api/sessions')).body.data;
    assert.ok(sessions.some((s) => s.id === 'mind'));
    const mind = (await api<{ turns: Array<{ feedback: unknown; samples: Array<{ reward: number }> }> }>(t, 'GET', '/api/sessions/mind'))
      .body;
    assert.deepEqual(mind.turns[0].feedback, null);
    assert.equal((await api(t, 'GET', '/api/sessions/nope')).status, 404);
  });
});
