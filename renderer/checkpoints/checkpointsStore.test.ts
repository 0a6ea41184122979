import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../api/client.js';
import { apiError, chatStream, checkpoint as cp, checkpointList, fakeFetch, json } from '../test/fakeCore.js';
import { createCheckpointsStore, lineageRows } from './checkpointsStore.js';
import { branchNote } from './versionNames.js';
import { createCompareStore } from './compareStore.js';

test('checkpoints: newest first, and a row whose parent already had a child starts a branch', () => {
  // a → b → c, then a rollback to a and training on from it: d; then a rollback to base: e.
  const rows = [cp('a', 1, null), cp('b', 2, 'a'), cp('c', 3, 'b'), cp('d', 4, 'a'), cp('e', 5, null)];
  assert.deepEqual(
    lineageRows(rows).map((r) => `${r.row.id}${r.branch ? ' (branch)' : ''}`),
    ['e (branch)', 'd (branch)', 'c', 'b', 'a'],
  );
});

test('checkpoints: each row’s action reports on that row; a failed export says why', async () => {
  const f = fakeFetch({
    'GET /api/checkpoints': () => json(200, checkpointList([cp('a', 1, null), cp('b', 2, 'a')], 'a')),
    'POST /api/checkpoints/:id/rollback': () => json(200, { checkpoint: 'b', adapter_version: 3 }),
    'POST /api/checkpoints/:id/export': (r) =>
      (r.body as { dir?: string }).dir
        ? apiError(400, 'export folder is outside the data folder', 'dir')
        : json(200, { checkpoint: 'a', format: 'peft', dir: '/d/exports/a', files: ['adapter_model.safetensors', 'adapter_config.json'] }),
  });
  const store = createCheckpointsStore(new ApiClient({ fetch: f, getKey: () => null }));
  await store.getState().load();
  assert.equal(store.getState().liveId, 'a');
  assert.equal(await store.getState().rollback('b'), true);
  assert.match(store.getState().outcomes.b.message, /v3/);
  assert.equal(await store.getState().exportTo('a', 'gguf', '/etc'), null);
  assert.deepEqual(
    { ok: store.getState().outcomes.a.ok, msg: store.getState().outcomes.a.message },
    { ok: false, msg: 'export folder is outside the data folder' },
  );
  const r = await store.getState().exportTo('a', 'peft');
  assert.equal(r?.files.length, 2);
  assert.deepEqual(
    f.calls.filter((c) => c.path.endsWith('/export')).map((c) => c.body),
    [{ format: 'gguf', dir: '/etc' }, { format: 'peft' }],
  );
  assert.deepEqual(store.getState().busy, {});
});

test('compare: two versions answer one prompt in separate sessions; the pick becomes 👍 and 👎', async () => {
  const f = fakeFetch({
    'POST /v1/chat/completions': (r) => {
      const adapter = (r.body as { adapter: string }).adapter;
      return chatStream([`from ${adapter}`], { id: `c-${adapter}`, version: adapter === 'base' ? 0 : 4 });
    },
    'POST /v1/feedback': (r) => {
      const b = r.body as { completion_id: string; rating: 'up' | 'down' };
      return json(200, {
        completion_id: b.completion_id,
        rating: b.rating,
        hint: null,
        updated_at: 1,
        session_id: 's',
        turn_type: 'main',
        trainable: true,
      });
    },
  });
  const store = createCompareStore(new ApiClient({ fetch: f, getKey: () => null }), () => 'x');
  store.getState().setPrompt('which is better?');
  await store.getState().run('base', 'step-4');
  const { answers } = store.getState();
  assert.equal(answers?.a.content, 'from base');
  assert.equal(answers?.b.content, 'from step-4');
  const sessions = f.calls
    .filter((c) => c.path === '/v1/chat/completions')
    .map((c) => c.headers.get('x-session-id'))
    .sort();
  assert.deepEqual(sessions, ['compare-x-a', 'compare-x-b']);
  await store.getState().pick('b');
  assert.deepEqual(
    f.calls.filter((c) => c.path === '/v1/feedback').map((c) => c.body),
    [
      { completion_id: 'c-step-4', rating: 'up' },
      { completion_id: 'c-base', rating: 'down' },
    ],
  );
});

test('compare: no pick while either answer is still streaming (its turn is recorded when it ends)', async () => {
  const f = fakeFetch({
    'POST /v1/chat/completions': (r) => chatStream(['x'], { id: `c-${(r.body as { adapter: string }).adapter}`, version: 1 }),
    'POST /v1/feedback': () => json(200, {}),
  });
  const store = createCompareStore(new ApiClient({ fetch: f, getKey: () => null }), () => 'y');
  store.getState().setPrompt('q');
  await store.getState().run('base', 'live');
  const answers = store.getState().answers!;
  store.setState({ answers: { ...answers, a: { ...answers.a, streaming: true } } });
  await store.getState().pick('b');
  assert.equal(f.calls.filter((c) => c.path === '/v1/feedback').length, 0);
  assert.match(store.getState().pickMessage ?? '', /must be complete/);
});

test('checkpoints: a branch names the child it went back past; "From" says why in words, not "branch"', () => {
  // v1 → v2 → v3; a rollback to v1, then v4 from it; v5 from v4 was held back, then v6 from v4 again.
  const v = (id: string, version: number, parent: string | null, heldBack = false) =>
    cp(id, version, parent, { competence: heldBack ? { accuracy: 0.5, n: 40, held_back: true, reason: null, seconds: 1 } : null });
  const rows = [v('a', 1, null), v('b', 2, 'a'), v('c', 3, 'b'), v('d', 4, 'a'), v('e', 5, 'd', true), v('f', 6, 'd')];
  const lineage = lineageRows(rows);
  const note = (id: string) => {
    const r = lineage.find((x) => x.row.id === id)!;
    return r.bypassed ? branchNote(r.bypassed).short : null;
  };
  assert.equal(note('d'), 'after a rollback');
  assert.equal(note('f'), 'after v5 was held back');
  assert.equal(note('c'), null);
  assert.match(branchNote(lineage.find((x) => x.row.id === 'd')!.bypassed!).long, /v2 and what followed it are not in this line/);
});
