import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TRAINING_STATES } from '../../main/protocol/training.js';
import { trainingBadgeText } from './trainingBadge.js';

test('training badge: every state reads as words, none repeats "Training"', () => {
  const texts = TRAINING_STATES.map((s) => trainingBadgeText(s, 0));
  assert.equal(new Set(texts).size, TRAINING_STATES.length);
  for (const t of texts) assert.doesNotMatch(t, /training\W+training/i, t);
  assert.equal(trainingBadgeText('training', 0), 'Training');
  assert.equal(trainingBadgeText('paused', 3), 'Training paused · 3 queued');
});

test('training badge: a state from a newer core is shown as the core names it', () => {
  assert.equal(trainingBadgeText('migrating' as never, 0), 'Training migrating');
});
