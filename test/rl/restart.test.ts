import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../main/cli/main.js';
import { DEFAULT_TRAINING_CONFIG, type TrainingConfig, type TrainingStatus } from '../../main/protocol/training.js';
import { exited, startServe, type ServeProcess } from '../helpers/serveProcess.js';
import { postJson, waitFor } from '../helpers/testServer.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { logprobScale, logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { modelDir } from '../helpers/paths.js';

async function get<T>(s: ServeProcess, p: string): Promise<T> {
  return (await (await fetch(`${s.origin}${p}`)).json()) as T;
}
async function rated(s: ServeProcess, i: number, rating: 'up' | 'down'): Promise<string> {
  const r = (await (
    await postJson(
      `${s.url}/chat/completions`,
      { messages: [{ role: 'user', content: `q${i}` }], max_tokens: 3 },
      { 'x-session-id': `r${i}`, 'x-turn-type': 'main' },
    )
  ).json()) as { id: string };
  const f = await postJson(`${s.url}/feedback`, { completion_id: r.id, rating });
  assert.equal(f.status, 200);
  return r.id;
}
async function probe(s: ServeProcess) {
  const res = await postJson(`${s.url}/chat/completions`, {
    messages: [{ role: 'user', content: 'probe' }],
    max_tokens: 1,
    logprobs: true,
    top_logprobs: 10,
  });
  const body = (await res.json()) as { choices: Array<{ logprobs: { content: Array<{ top_logprobs: Array<{ logprob: number }> }> } }> };
  return {
    version: Number(res.headers.get('x-clawloop-adapter-version')),
    top: body.choices[0].logprobs.content[0].top_logprobs.map((e) => e.logprob),
  };
}
const io = () => {
  let out = '';
  let log = '';
  return { io: { out: (t: string) => (out += t), log: (l: string) => (log += l + '\n') }, out: () => out, log: () => log };
};

describe('restart', () => {
  it('after SIGKILL the restarted server has the same status, live adapter, queue and configuration', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-restart-'));
    const model = modelDir('qwen3-qknorm');
    const first = await startServe(model, dataDir, ['--train-method', 'rl', '--batch-size', '2', '--lr', '0.001', '--feedback-wait', '0']);
    await rated(first, 0, 'up');
    await rated(first, 1, 'down');
    await waitFor(async () => (await get<TrainingStatus>(first, '/api/training/status')).step === 1, 'step 1');
    const put = await fetch(`${first.origin}/api/training/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ batch_size: 100 }),
    });
    assert.equal(put.status, 200);
    for (let i = 2; i < 5; i++) await rated(first, i, i % 2 ? 'up' : 'down');
    const before = await waitFor(async () => {
      const s = await get<TrainingStatus>(first, '/api/training/status');
      return s.queued_samples === 3 ? s : null;
    }, 'three queued samples');
    const probeBefore = await probe(first);
    first.child.kill('SIGKILL');
    await exited(first.child);

    const second = await startServe(model, dataDir);
    const after = await get<TrainingStatus>(second, '/api/training/status');
    assert.deepEqual(
      [after.method, after.step, after.adapter_version, after.queued_samples],
      [before.method, before.step, before.adapter_version, before.queued_samples],
    );
    assert.equal((await get<TrainingConfig>(second, '/api/training/config')).batch_size, 100, 'the configuration survives');
    const probeAfter = await probe(second);
    assert.equal(probeAfter.version, probeBefore.version);
    // Another process (another thread count, batch and kernel choice): the tolerance of a forward
    // pass with LoRA, for a prompt within the model's 256 positions.
    const config = fixtureConfig('qwen3-qknorm');
    const tol = tolerance(logprobsModel(config, config.maxPositions, { loraRank: DEFAULT_TRAINING_CONFIG.lora_rank }));
    const scale = logprobScale(config, probeBefore.top);
    assertClose(probeAfter.top, probeBefore.top, tol, 'the restored adapter serves the same distribution', { scale });

    // SIGKILL racing a step: whatever the timing, the restart is consistent and training goes on.
    await fetch(`${second.origin}/api/training/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ batch_size: 4 }),
    });
    await rated(second, 5, 'up');
    second.child.kill('SIGKILL');
    await exited(second.child);
    const third = await startServe(model, dataDir);
    const s3 = await waitFor(async () => {
      const s = await get<TrainingStatus>(third, '/api/training/status');
      return s.state === 'idle' && s.queued_samples === 0 ? s : null;
    }, 'the interrupted step to be redone');
    assert.equal(s3.step, 2);
    assert.equal(s3.adapter_version, 2);
    assert.equal((await probe(third)).version, 2);
    third.child.kill('SIGTERM');
    assert.equal(await exited(third.child), 0);

    // The shell commands, on the stopped server's data folder.
    const list = io();
    assert.equal(await main(['checkpoints', 'list', '--data-dir', dataDir], list.io), 0);
    assert.match(list.out(), /step-000001\s+1\s+1 .*\n.*step-000002\s+2\s+2 .*live/);
    const exp = io();
    assert.equal(await main(['checkpoints', 'export', 'step-000001', path.join(dataDir, 'out'), '--data-dir', dataDir], exp.io), 0);
    assert.ok(fs.existsSync(path.join(dataDir, 'out', 'adapter_model.safetensors')));
    const rb = io();
    assert.equal(await main(['checkpoints', 'rollback', 'step-000001', '--data-dir', dataDir], rb.io), 0);
    assert.match(rb.out(), /adapter version 3 will be live/);
    const bad = io();
    assert.equal(await main(['checkpoints', 'rollback', 'step-999', '--data-dir', dataDir], bad.io), 1);
    assert.match(bad.log(), /no checkpoint 'step-999'/);
    const fourth = await startServe(model, dataDir);
    const s4 = await get<TrainingStatus>(fourth, '/api/training/status');
    assert.equal(s4.adapter_version, 3);
    const live = await get<{ live_checkpoint: string }>(fourth, '/api/checkpoints');
    assert.equal(live.live_checkpoint, 'step-000001');
    // With the server running, the shell command goes through its API.
    const online = io();
    assert.equal(await main(['checkpoints', 'rollback', 'base', '--data-dir', dataDir], online.io), 0);
    assert.match(online.out(), /adapter version 4 is live \(server pid \d+\)/);
    assert.equal((await probe(fourth)).version, 4);
    fourth.child.kill('SIGTERM');
    await exited(fourth.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
