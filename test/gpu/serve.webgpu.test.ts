import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TrainingStatus } from '../../main/protocol/training.js';
import { gpuSkipReason } from '../helpers/gpuSkip.js';
import { exited, startServe, type ServeProcess } from '../helpers/serveProcess.js';
import { longContextModel, postJson, waitFor } from '../helpers/testServer.js';

// `clawloop serve --backend webgpu` as a user runs it: it serves (two requests decoded as one
// batch), judges a turn from its next state, trains a step from 👍/👎, hot-swaps the new adapter,
// rolls back, and stops cleanly. On the software adapter in CI: slow, so the turns are short.

const skip = await gpuSkipReason();

describe('clawloop serve --backend webgpu', { skip }, () => {
  let s: ServeProcess;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-gpu-serve-'));
  before(async () => {
    const model = skip ? '' : longContextModel('qwen3-qknorm', 2048);
    s = await startServe(model, dataDir, ['--backend', 'webgpu', '--train-method', 'rl', '--batch-size', '2', '--lr', '0.05', '--votes', '1', '--feedback-wait', '0']);
    const r = await fetch(`${s.origin}/api/training/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ judge_max_tokens: 16, max_staleness: null }),
    });
    assert.equal(r.status, 200, await r.text());
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const json = async <T>(method: string, p: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${s.origin}${p}`, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
    assert.ok(res.ok, `${method} ${p}: ${res.status} ${await res.clone().text()}`);
    return (await res.json()) as T;
  };
  const status = () => json<TrainingStatus>('GET', '/api/training/status');
  let n = 0;
  async function chat(content: string, session: string): Promise<{ id: string; version: number; text: string }> {
    const res = await postJson(`${s.url}/chat/completions`, { messages: [{ role: 'user', content }], max_tokens: 3, seed: n++ }, { 'x-session-id': session, 'x-turn-type': 'main' });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { id: string; choices: Array<{ message: { content: string } }> };
    return { id: body.id, version: Number(res.headers.get('x-clawloop-adapter-version')), text: body.choices[0].message.content };
  }

  it('runs on the GPU backend', () => {
    const lines = s.stderr().split('\n').filter((l) => l.includes("tfjs backend 'webgpu'"));
    assert.ok(lines.length >= 1, `expected the inference worker on webgpu; stderr:\n${s.stderr()}`);
  });

  it('serves two requests at once and judges a turn once its next state arrives', async () => {
    const [a] = await Promise.all([chat('what is two plus two?', 'judged'), chat('say hello', 'other')]);
    assert.equal(a.version, 0);
    await chat('thanks, and three plus three?', 'judged'); // the next state of turn a
    const detail = await waitFor(async () => {
      const d = await json<{ turns: Array<{ id: string; judgements: unknown[] }> }>('GET', '/api/sessions/judged');
      return d.turns.find((t) => t.id === a.id && t.judgements.length > 0);
    }, 'the judge to score the first turn', 300_000);
    assert.ok(detail.judgements.length > 0);
  });

  it('trains a step from 👍/👎, and the next request is served by the new adapter', async () => {
    for (const rating of ['up', 'down']) {
      const c = await chat(`question ${rating}`, `rated-${rating}`);
      assert.equal((await postJson(`${s.origin}/v1/feedback`, { completion_id: c.id, rating })).status, 200);
    }
    const st = await waitFor(async () => {
      const x = await status();
      return x.step >= 1 && x.state !== 'training' ? x : null;
    }, 'an optimizer step', 300_000);
    assert.ok(Number.isFinite(st.last_step!.loss), `loss ${st.last_step!.loss}`);
    const served = await waitFor(async () => {
      const c = await chat('after the step', 'after');
      return c.version >= 1 ? c : null;
    }, 'the new adapter to be served', 60_000);
    assert.equal(served.version, st.adapter_version);
  });

  it('rolls back to the base model as a new version', async () => {
    const r = await json<{ adapter_version: number; checkpoint: string }>('POST', '/api/checkpoints/base/rollback');
    assert.equal(r.checkpoint, 'base');
    const c = await waitFor(async () => {
      const x = await chat('after the rollback', 'rolled');
      return x.version === r.adapter_version ? x : null;
    }, 'the rollback to be served', 60_000);
    assert.equal(c.version, r.adapter_version);
    assert.ok(r.adapter_version > 1, 'a rollback is a new version');
  });

  it('stops cleanly on SIGTERM', async () => {
    s.child.kill('SIGTERM');
    assert.equal(await exited(s.child), 0, s.stderr());
  });
});
