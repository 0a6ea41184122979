import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../api/client.js';
import { fakeFetch, json, session, turnView } from '../test/fakeCore.js';
import { createDataStore, EMPTY_FILTER, filterQuery } from './dataStore.js';

test('data: filters become the query; an impossible range is explained, not sent', () => {
  assert.deepEqual(filterQuery({ ...EMPTY_FILTER, hasFeedback: 'yes', trained: 'no', minReward: '0', maxReward: '1' }).query, {
    has_feedback: 'true',
    trained: 'false',
    session_id: undefined,
    min_reward: 0,
    max_reward: 1,
    q: undefined,
  });
  assert.equal(filterQuery({ ...EMPTY_FILTER, text: '  zebra fish ' }).query.q, 'zebra fish', 'the search is trimmed');
  assert.match(filterQuery({ ...EMPTY_FILTER, minReward: 'x' }).error ?? '', /Minimum reward must be a number/);
  assert.match(filterQuery({ ...EMPTY_FILTER, minReward: '1', maxReward: '-1' }).error ?? '', /above the maximum/);
});

test('data: turns load with the filter, page with before=, and a deleted session disappears', async () => {
  let sessions = [session('s1')];
  const f = fakeFetch({
    'GET /api/sessions': () => json(200, { object: 'list', data: sessions }),
    'GET /api/turns': (r) =>
      json(
        200,
        r.query.get('before')
          ? { object: 'list', data: [turnView('t0', { created_at: 10 })], has_more: false }
          : { object: 'list', data: [turnView('t2', { created_at: 30 }), turnView('t1', { created_at: 20 })], has_more: true },
      ),
    'DELETE /api/sessions/:id': () => {
      sessions = [];
      return json(200, { id: 's1', deleted: true, turns: 3, samples_removed: 1 });
    },
  });
  const store = createDataStore(new ApiClient({ fetch: f, getKey: () => null }));
  store.getState().setFilter({ hasFeedback: 'yes' });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(f.calls.find((c) => c.path === '/api/turns')!.query.get('has_feedback'), 'true');
  await store.getState().more();
  assert.deepEqual(
    store.getState().turns.map((t) => t.id),
    ['t2', 't1', 't0'],
  );
  assert.equal(
    f.calls
      .filter((c) => c.path === '/api/turns')
      .at(-1)!
      .query.get('before'),
    '20',
  );
  assert.equal(await store.getState().deleteSession('s1'), true);
  assert.deepEqual(store.getState().sessions, []);
});
