import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../main/server/apiError.js';
import { ExportQueue } from '../../main/server/exportQueue.js';
import { api, chat, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

type Exported = { dir: string; files: string[]; error: { message: string; code: string; param: string | null } };

/** Issue 41, finding 4: GGUF exports neither overwrite each other nor load the model once each. */
describe('issue 41: one export at a time per folder, one model-loading export worker at a time', () => {
  it('4: exports wait for the worker in order of arrival, never two at once; too many waiting is a 429', async () => {
    const queue = new ExportQueue(1, 3);
    let now = 0;
    let peak = 0;
    const order: number[] = [];
    const job = (i: number) =>
      queue.withWorker(async () => {
        peak = Math.max(peak, ++now);
        await new Promise((r) => setTimeout(r, 5));
        order.push(i);
        now--;
        return i;
      });
    const jobs = [0, 1, 2, 3].map(job);
    await assert.rejects(job(4), (err: ApiError) => err.status === 429 && /3 GGUF exports are waiting/.test(err.message));
    assert.deepEqual(await Promise.all(jobs), [0, 1, 2, 3]);
    assert.deepEqual([peak, order], [1, [0, 1, 2, 3]]);
    assert.deepEqual(queue.load, { running: 0, waiting: 0 });
    await assert.rejects(
      queue.withWorker(() => Promise.reject(new Error('the worker crashed'))),
      /crashed/,
    );
    assert.equal(await job(5), 5, 'a failed export gives its worker back');
  });

  it('4: an export whose client left while it waited never runs, and the next one does', async () => {
    const queue = new ExportQueue(1, 3);
    const ran: string[] = [];
    let finish = () => {};
    const first = queue.withWorker(() => new Promise<void>((r) => (finish = r)).then(() => ran.push('first')));
    const left = new AbortController();
    const gone = queue.withWorker(async () => ran.push('gone'), left.signal);
    const next = queue.withWorker(async () => ran.push('next'));
    assert.deepEqual(queue.load, { running: 1, waiting: 2 });
    left.abort();
    await assert.rejects(gone, (err: ApiError) => err.status === 499);
    assert.deepEqual(queue.load, { running: 1, waiting: 1 });
    finish();
    await Promise.all([first, next]);
    assert.deepEqual(ran, ['first', 'next']);
  });

  describe('through the API', () => {
    let t: TestServer;
    const exp = (body: object) => api<Exported>(t, 'POST', '/api/checkpoints/step-000001/export', { format: 'gguf', ...body });

    before(async () => {
      t = await startTestServer({ train: { method: 'rl', batch_size: 1 } });
      const c = await chat(t, 'teach me', { session: 'x', type: 'main' });
      await api(t, 'POST', '/v1/feedback', { completion_id: c.id, rating: 'up' });
      await waitFor(async () => (await api<{ step: number }>(t, 'GET', '/api/training/status')).body.step >= 1, 'a checkpoint');
    });
    after(() => t.close());

    it('4: three exports at once without a folder name land in three folders, each with its own model.gguf', async () => {
      const answers = await Promise.all([exp({}), exp({}), exp({})]);
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200],
        JSON.stringify(answers.map((a) => a.body)),
      );
      const dirs = answers.map((a) => a.body.dir);
      assert.equal(new Set(dirs).size, 3, `distinct folders: ${dirs.join(', ')}`);
      for (const d of dirs) assert.deepEqual(fs.readdirSync(d), ['model.gguf']);
    });

    it('4: a second export into the folder an export is writing is a 409 naming the running one', async () => {
      const [first, second] = await Promise.all([exp({ dir: 'same' }), exp({ dir: 'same' })]);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(second.status, 409);
      assert.equal(second.body.error.code, 'export_running');
      assert.match(second.body.error.message, /an export of step-000001 into .*same is running/);
      assert.deepEqual(fs.readdirSync(path.join(first.body.dir)), ['model.gguf']);
      const after = await exp({ dir: 'same' });
      assert.equal(after.status, 409, 'once written, the folder is not overwritten');
      assert.match(after.body.error.message, /already exists and is not an empty folder/);
    });
  });
});
