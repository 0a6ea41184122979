import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClawLoopEvent } from '../api/events.js';
import { createNotificationsStore, NOTICE_TTL_MS } from './notificationsStore.js';

const ev = (event: string, data: unknown): ClawLoopEvent => ({ id: '1', at: 0, event, data }) as unknown as ClawLoopEvent;
const state = (s: string) => ev('training.state', { state: s, message: null, queue_length: 0, pending_turns: 0 });

test('notifications: a step starts once, ends, and a version goes live or is held back, in words', () => {
  let t = 1000;
  const store = createNotificationsStore(
    () => 3,
    () => t,
  );
  store.getState().onEvent(state('training'));
  store.getState().onEvent(state('training')); // published again while it holds: no second notice
  store.getState().onEvent(ev('train.step', { step: 4, samples: 2, step_seconds: 6.4, skipped: false, skip_reason: null }));
  store.getState().onEvent(ev('adapter.live', { version: 5, checkpoint_id: 'step-000004', reason: 'trained' }));
  store.getState().onEvent(ev('checkpoint.saved', { step: 5, version: 6, competence: { held_back: true } }));
  assert.deepEqual(
    store.getState().notices.map((n) => [n.tone, n.text]),
    // At most three are shown: the oldest ("Step 4 started") made room.
    [
      ['info', 'Step 4 done: 2 sample(s) in 6.4 s.'],
      ['good', 'v5 is live: trained in step 4. New answers come from it.'],
      ['warn', 'Step 5 was held back: it did worse on the competence check; v6 stays off (Checkpoints can make it live).'],
    ],
  );
  // Stale ones go when the next one comes.
  t += NOTICE_TTL_MS;
  store.getState().onEvent(ev('adapter.live', { version: 7, checkpoint_id: null, reason: 'rollback' }));
  assert.deepEqual(
    store.getState().notices.map((n) => n.text),
    ['v7 is live: the base model again, after a rollback.'],
  );
});
