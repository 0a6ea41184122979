import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../api/client.js';
import { fakeFetch, json } from '../test/fakeCore.js';
import { createMetricsStore, REWARD_WINDOW } from './metricsStore.js';

const row = (step: number, reward: number | null, skipped = false) => ({
  step,
  created_at: step,
  adapter_version: step,
  checkpoint_id: `step-${step}`,
  skipped,
  skip_reason: null,
  loss: step / 10,
  kl: 0,
  clip_fraction: 0,
  learning_rate: 1e-3,
  mean_reward: reward,
  step_ms: 500,
});

const stepEvent = (step: number, reward: number | null, skipped = false) =>
  ({
    id: step,
    type: 'train.step',
    data: { step, loss: 1, reward_mean: reward, kl: 0, clip_frac: 0, lr: 1e-3, samples: 1, tokens: 10, step_seconds: 0.5, skipped, skip_reason: null },
  }) as const;

test('metrics: the history loads, events append, replayed and skipped steps are not plotted twice', async () => {
  const f = fakeFetch({ 'GET /api/metrics': () => json(200, { data: [row(1, 1), row(2, -1), row(3, null, true)] }) });
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
  s.onEvent({ id: 1, type: 'checkpoint.saved', data: { checkpoint_id: 'step-2', version: 2, parent: null, step: 2 } });
  s.onEvent({ id: 2, type: 'checkpoint.saved', data: { checkpoint_id: 'step-4', version: 3, parent: 'step-2', step: 4, competence: { accuracy: 0.5, n: 200, held_back: true, reason: 'accuracy fell' } } });
  s.onEvent({ id: 3, type: 'adapter.live', data: { version: 9, checkpoint_id: 'step-2', reason: 'rollback' } });
  assert.deepEqual(
    store.getState().markers.map((m) => [m.step, m.live, m.heldBack]),
    [
      [2, true, false],
      [4, false, true],
    ],
  );
  s.onEvent({ id: 4, type: 'training.state', data: { state: 'idle', queue_length: 3, at: 5000 } });
  assert.deepEqual(store.getState().queue.x, [5]);
  assert.deepEqual(store.getState().queue.y.queued, [3]);
});
