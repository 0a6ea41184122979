import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../api/client.js';
import { chatStream, fakeFetch, json, session } from '../test/fakeCore.js';
import { comparisonsFrom, isCompareSession } from '../ui/compareSessions.js';
import { createCompareStore, sameVersion } from './compareStore.js';

/** A core whose versions answer `texts[adapter]`; feedback and renames are recorded in `f.calls`. */
function core(texts: Record<string, string>) {
  return fakeFetch({
    'POST /v1/chat/completions': (r) => {
      const adapter = (r.body as { adapter: string }).adapter;
      return chatStream([texts[adapter]], { id: `c-${adapter}`, version: adapter === 'base' ? 0 : 4 });
    },
    'POST /v1/feedback': (r) =>
      json(200, { ...(r.body as object), hint: null, updated_at: 1, session_id: 's', turn_type: 'main', trainable: true }),
    'PATCH /api/sessions/:id': (r) => json(200, session(r.path.split('/').pop()!, { title: (r.body as { title: string }).title })),
  });
}
const feedbackSent = (f: ReturnType<typeof core>) => f.calls.filter((c) => c.path === '/v1/feedback').map((c) => c.body);

test('compare: identical answers cannot have a winner; "about the same" rates nothing; "both bad" is 👎 on both', async () => {
  const f = core({ base: '180 minutes', 'step-4': '180 minutes' });
  const store = createCompareStore(new ApiClient({ fetch: f, getKey: () => null }), () => 'x');
  store.getState().setPrompt('How many minutes are in 3 hours?');
  await store.getState().run('base', 'step-4');
  await store.getState().pick('a');
  assert.deepEqual(feedbackSent(f), [], 'no 👍 and 👎 on the same text');
  assert.match(store.getState().pickMessage ?? '', /same text/);
  await store.getState().pick('same');
  assert.deepEqual(feedbackSent(f), []);
  assert.match(store.getState().pickMessage ?? '', /about the same: neither answer is rated/);
  await store.getState().pick('both_bad');
  assert.deepEqual(feedbackSent(f), [
    { completion_id: 'c-base', rating: 'down' },
    { completion_id: 'c-step-4', rating: 'down' },
  ]);
  await store.getState().pick('same');
  assert.deepEqual(
    feedbackSent(f).slice(2),
    [
      { completion_id: 'c-base', rating: null },
      { completion_id: 'c-step-4', rating: null },
    ],
    'changing the verdict to "about the same" takes the ratings back',
  );
});

test('compare: both sides get readable names (for Data), listed as one past comparison and never in Chat', async () => {
  const f = core({ base: 'a', 'step-4': 'b' });
  const store = createCompareStore(new ApiClient({ fetch: f, getKey: () => null }), () => 'app-1');
  store.getState().setPrompt('Convert 2 km to meters.');
  await store.getState().run('base', 'step-4');
  const renames = f.calls.filter((c) => c.method === 'PATCH').map((c) => [c.path, (c.body as { title: string }).title]);
  assert.deepEqual(renames, [
    ['/api/sessions/compare-app-1-a', 'Compare v0 vs v4 · A · Convert 2 km to meters.'],
    ['/api/sessions/compare-app-1-b', 'Compare v0 vs v4 · B · Convert 2 km to meters.'],
  ]);
  assert.ok(isCompareSession('compare-app-1-a') && !isCompareSession('app-1'));
  const listed = comparisonsFrom([
    session('compare-app-1-a', { title: renames[0][1], created_at: 5 }),
    session('compare-app-1-b', { title: renames[1][1], created_at: 5 }),
    session('app-2', { title: 'Chat' }),
  ]);
  assert.deepEqual(
    listed.map((c) => c.label),
    ['Compare v0 vs v4 · Convert 2 km to meters.'],
  );
});

test('compare: a version against itself is refused, "live" included', () => {
  assert.equal(sameVersion('step-4', 'step-4', null), true);
  assert.equal(sameVersion('live', 'step-4', 'step-4'), true);
  assert.equal(sameVersion('live', 'base', null), true, 'the base model is live');
  assert.equal(sameVersion('live', 'live', 'step-4'), true);
  assert.equal(sameVersion('base', 'step-4', 'step-4'), false);
});
