import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../api/client.js';
import { checkpoint, event, fakeFetch, json, metricsRow as row, stepEvent } from '../test/fakeCore.js';
import { createMetricsStore, REWARD_WINDOW } from './metricsStore.js';

test('metrics: the history loads, events append, replayed and skipped steps are not plotted twice', async () => {
  const f = fakeFetch({ 'GET /api/metrics': () => json(200, { object: 'list', data: [row(1, 1), row(2, -1), row(3, null, true)] }) });
  const store = createMetricsStore(new ApiClient({ fetch: f, getKey: () => null }));
  await store.getState().loadHistory();
  const s = store.getState();
  s.onEvent(stepEvent(2, -1)); // replayed: already in the history
  s.onEvent(stepEvent(4, null, true)); // skipped: no point
  s.onEvent(stepEvent(5, 1));
  const steps = store.getState().steps;
  assert.deepEqual(steps.x, [1, 2, 5]);
  assert.deepEqual(steps.y.reward, [1, -1, 1]);
  assert.deepEqual(steps.y.rewardMean, [1, 0, 1 / 3]);
  assert.deepEqual(steps.y.stepSeconds, [0.5, 0.5, 0.5]);
});

test('metrics: the rolling mean covers the last REWARD_WINDOW rewards and skips gaps', () => {
  const store = createMetricsStore(new ApiClient({ fetch: fakeFetch(), getKey: () => null }));
  for (let i = 1; i <= REWARD_WINDOW; i++) store.getState().onEvent(stepEvent(i, -1));
  store.getState().onEvent(stepEvent(REWARD_WINDOW + 1, null));
  for (let i = 0; i < REWARD_WINDOW; i++) store.getState().onEvent(stepEvent(REWARD_WINDOW + 2 + i, 1));
  const y = store.getState().steps.y;
  assert.equal(y.reward[REWARD_WINDOW], null);
  assert.equal(y.rewardMean[REWARD_WINDOW], -1);
  assert.equal(y.rewardMean.at(-1), 1);
});

test('metrics: 10,000 steps append into the same columns (no copies), one revision each', () => {
  const store = createMetricsStore(new ApiClient({ fetch: fakeFetch(), getKey: () => null }));
  const xs = store.getState().steps.x;
  const r0 = store.getState().revision;
  for (let i = 1; i <= 10_000; i++) store.getState().onEvent(stepEvent(i, i % 2 ? 1 : -1));
  assert.equal(store.getState().steps.x, xs);
  assert.equal(xs.length, 10_000);
  assert.equal(store.getState().revision - r0, 10_000);
});

test('metrics: checkpoint markers follow saves, and the live one follows adapter.live by checkpoint id', () => {
  const store = createMetricsStore(new ApiClient({ fetch: fakeFetch(), getKey: () => null }));
  const s = store.getState();
  const metrics = { loss: 1, reward_mean: 1, samples: 1, tokens: 10 };
  s.onEvent(event(1, 'checkpoint.saved', { checkpoint_id: 'step-2', version: 2, parent: null, step: 2, metrics, competence: null }));
  const competence = { accuracy: 0.5, n: 200, held_back: true, reason: 'accuracy fell' };
  s.onEvent(event(2, 'checkpoint.saved', { checkpoint_id: 'step-4', version: 3, parent: 'step-2', step: 4, metrics, competence }));
  s.onEvent(event(3, 'adapter.live', { version: 9, checkpoint_id: 'step-2', reason: 'rollback' }));
  assert.deepEqual(
    store.getState().markers.map((m) => [m.step, m.live, m.heldBack]),
    [
      [2, true, false],
      [4, false, true],
    ],
  );
  s.onEvent(event(4, 'training.state', { state: 'idle', message: null, queue_length: 3, pending_turns: 0 }, 5000));
  store.getState().setCheckpoints([checkpoint('step-2', 2, null), checkpoint('step-4', 4, 'step-2')], 'step-4');
  assert.deepEqual(
    store.getState().markers.map((m) => m.live),
    [false, true],
  );
  assert.deepEqual(store.getState().queue.x, [5]);
  assert.deepEqual(store.getState().queue.y.queued, [3]);
});
