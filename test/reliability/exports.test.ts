import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readGgufHeader } from '../../main/engine/formats/ggufFile.js';
import { api, chat, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

type Err = { error: { message: string; param: string | null } };

/** Issue 10 §4 and issue 15 finding 5: exports land only where the user allowed them. */
describe('exports are confined to the data folder’s exports/ or a folder allowed with --export-dir', () => {
  let t: TestServer;
  const allowed = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-allowed-'));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-outside-'));
  const exp = (body: object) => api<{ dir: string; files: string[] } & Err>(t, 'POST', '/api/checkpoints/step-000001/export', body);

  before(async () => {
    t = await startTestServer({ train: { method: 'rl', batch_size: 1 }, options: { exportDirs: [allowed] } });
    const c = await chat(t, 'teach me', { session: 'x', type: 'main' });
    await api(t, 'POST', '/v1/feedback', { completion_id: c.id, rating: 'up' });
    await waitFor(async () => (await api<{ step: number }>(t, 'GET', '/api/training/status')).body.step >= 1, 'a checkpoint');
  });
  after(async () => {
    await t.close();
    for (const d of [allowed, outside]) fs.rmSync(d, { recursive: true, force: true });
  });

  it('a plain name or nothing lands in exports/, never twice in the same folder', async () => {
    const first = await exp({});
    const second = await exp({});
    // Named after what Checkpoints shows (v1), not the internal folder (step-000001).
    assert.equal(first.body.dir, path.join(fs.realpathSync(t.dataDir), 'exports', 'v1'));
    assert.equal(second.body.dir, `${first.body.dir}-copy-2`);
    assert.equal(fs.existsSync(path.join(t.dataDir, 'unfinished-exports')), false, 'no empty journal folder is left behind');
    await api(t, 'PATCH', '/api/checkpoints/step-000001', { name: 'Short answers, no headings!' });
    assert.equal((await exp({})).body.dir, path.join(fs.realpathSync(t.dataDir), 'exports', 'v1-short-answers-no-headings'));
    await api(t, 'PATCH', '/api/checkpoints/step-000001', { name: null });
    assert.equal((await exp({ dir: 'mine' })).status, 200);
    const again = await exp({ dir: 'mine' });
    assert.equal(again.status, 409);
    assert.match(again.body.error.message, /already exists and is not an empty folder/);
  });

  it('refuses .., absolute paths outside the allowed folders, and symlinks that lead outside; nothing is written', async () => {
    for (const dir of ['../escape', 'a/../../escape', path.join(outside, 'x')]) {
      const r = await exp({ dir });
      assert.equal(r.status, 400, dir);
      assert.equal(r.body.error.param, 'dir');
    }
    fs.symlinkSync(outside, path.join(t.dataDir, 'exports', 'link'));
    const viaLink = await exp({ dir: 'link/inside' });
    assert.equal(viaLink.status, 400);
    assert.match(viaLink.body.error.message, /it leads to/);
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing written outside');
  });

  it('format gguf: the checkpoint merged into its base model, as one GGUF file llama.cpp reads', async () => {
    const r = await exp({ format: 'gguf', dir: 'merged' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(
      r.body.files.map((f) => path.basename(f)),
      ['model.gguf'],
    );
    const h = readGgufHeader(r.body.files[0]);
    assert.equal(h.metadata.get('general.architecture'), 'qwen3');
    assert.match(String(h.metadata.get('general.name')), /step-000001/);
  });

  it('writes under a folder the user allowed', async () => {
    const r = await exp({ dir: path.join(allowed, 'peft'), format: 'peft' });
    assert.equal(r.status, 200);
    assert.deepEqual(fs.readdirSync(path.join(allowed, 'peft')).sort(), ['adapter_config.json', 'adapter_model.safetensors']);
  });
});
