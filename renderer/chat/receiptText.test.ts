import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Receipt } from '../api/contract.js';
import { receipt as fakeReceipt } from '../test/fakeCore.js';
import { receiptText } from './receiptText.js';

/** A judged receipt scored +1, with `r` over it. */
const receipt = (r: Partial<Receipt>): Receipt => fakeReceipt(r.stage ?? 'judged', { score: 1, ...r });

test('receipt: a step held back by the competence gate says so, and why, in words', () => {
  const held = receipt({
    stage: 'trained',
    hint: 'Only the number.',
    hint_source: 'feedback',
    step: 8,
    checkpoint_id: 'step-000008',
    reason:
      'held back by the competence gate: 40.0% on 48 held-out prompts, 5.0 points below the best live policy (45.0%, step-000007); the margin is 3.0 points',
  });
  assert.equal(
    receiptText(held),
    'Judged +1 · your hint “Only the number.” · trained in step 8, held back by the competence gate: 40.0% on 48 held-out prompts, ' +
      '5.0 points below the best live policy (45.0%, step 7); the margin is 3.0 points; the live version is unchanged',
  );
  const rolledBack = receipt({ stage: 'trained', step: 5, reason: 'what this step learned is not in the live adapter (rolled back)' });
  assert.equal(
    receiptText(rolledBack),
    'Judged +1 · trained in step 5 · not live: what this step learned is not in the live adapter (rolled back)',
  );
});

test('receipt: an answer a step is taking says it is being trained on, with its hint', () => {
  const withHint = receipt({ score: -1, hint: 'Just give the number of hours.', hint_source: 'feedback', feedback_open: false });
  assert.equal(
    receiptText(withHint),
    'Judged: score −1 · your hint “Just give the number of hours.” · being trained on now, hint included',
  );
  assert.doesNotMatch(receiptText(withHint), /can no longer change/);
  assert.equal(receiptText(receipt({ feedback_open: false })), 'Judged: score +1 · being trained on now');
  assert.equal(receiptText(receipt({})), 'Judged: score +1');
});
