import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stepProgress } from './stepProgress.js';

test('step progress: during a step the Dashboard names it, not the last one done', () => {
  assert.deepEqual(stepProgress({ state: 'idle', step: 3 }, null, false), { step: '3', liveNote: '' });
  assert.deepEqual(stepProgress({ state: 'training', step: 0 }, null, false), {
    step: '1 in progress (0 done)',
    liveNote: 'step 1 goes live when it is done',
  });
  // Done, and checked by the competence gate: told by the events, or by the checkpoint list.
  assert.equal(stepProgress({ state: 'training', step: 1 }, 1, false).step, '1 done, being checked before it goes live');
  assert.equal(stepProgress({ state: 'training', step: 1 }, null, true).liveNote, 'step 1 goes live if it passes the check');
});
