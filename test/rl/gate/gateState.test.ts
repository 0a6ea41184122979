import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { confirmedReference, measuredReference, raisedReference, referenceAfterRollback } from '../../../main/rl/gate/gateState.js';
import { checkpointsToDelete } from '../../../main/rl/checkpointFiles.js';
import type { CheckpointRow, CompetenceReference } from '../../../main/store/learnStore.js';

const BASE: CompetenceReference = { key: 'k', accuracy: 0.875, source: 'base' };
/** A rise on the sample, unconfirmed over the base model's 87.5 %. */
const RISEN: CompetenceReference = { key: 'k', accuracy: 0.9, source: 'step-000002', floor: { accuracy: 0.875, source: 'base' } };

interface Case {
  name: string;
  got: () => CompetenceReference;
  want: CompetenceReference;
}

/** A checkpoint row as a rollback finds it: its recorded score, on the prompts `key` names. */
const row = (id: string, accuracy: number | null, key = 'k') =>
  ({
    id,
    competence: accuracy === null ? null : { accuracy, n: 96, held_back: true, reason: 'r', seconds: 1 },
    competenceKey: accuracy === null ? null : key,
  }) as unknown as CheckpointRow;

const CASES: Case[] = [
  { name: 'measured: the base model on a new set of prompts', got: () => measuredReference('k', 0.875), want: BASE },
  // Raised by a candidate that went live.
  {
    name: 'raised on a sample: unconfirmed, over the last confirmed reference',
    got: () => raisedReference(BASE, 'step-000001', 0.885, false),
    want: { key: 'k', accuracy: 0.885, source: 'step-000001', floor: { accuracy: 0.875, source: 'base' } },
  },
  {
    name: 'raised again before a check: the floor stays the last confirmed one',
    got: () => raisedReference(RISEN, 'step-000003', 0.95, false),
    want: { key: 'k', accuracy: 0.95, source: 'step-000003', floor: RISEN.floor },
  },
  { name: 'a tie raises nothing', got: () => raisedReference(RISEN, 'step-000003', 0.9, false), want: RISEN },
  {
    name: 'raised on a sample that is the whole set: confirmed at once',
    got: () => raisedReference(RISEN, 'step-000003', 0.95, true),
    want: { key: 'k', accuracy: 0.95, source: 'step-000003', checked: true },
  },
  { name: 'a tie on the whole set raises nothing', got: () => raisedReference(RISEN, 'step-000003', 0.9, true), want: RISEN },
  // Confirmed on the whole set: the rise's policy scored `holder` there, the floor's `under`.
  {
    name: 'confirmed: the floor raised by the gain on the whole set',
    got: () => confirmedReference(RISEN, 0.765625, 0.75),
    want: { key: 'k', accuracy: 0.890625, source: 'step-000002', checked: true },
  },
  {
    name: 'confirmed: at most the score on the sample',
    got: () => confirmedReference(RISEN, 0.875, 0.75),
    want: { key: 'k', accuracy: 0.875 + (0.9 - 0.875), source: 'step-000002', checked: true },
  },
  {
    name: 'confirmed: no gain on the whole set leaves the floor',
    got: () => confirmedReference(RISEN, 0.79, 0.8),
    want: { key: 'k', accuracy: 0.875, source: 'base', checked: true },
  },
  { name: 'a reference without a floor needs no confirming', got: () => confirmedReference(BASE, 0.9, 0.8), want: BASE },
  // A rollback made a checkpoint live by hand.
  {
    name: 'rolled back to a checkpoint that scored above it: raised',
    got: () => referenceAfterRollback(BASE, row('step-000004', 0.9), 'k', false),
    want: { key: 'k', accuracy: 0.9, source: 'step-000004', floor: { accuracy: 0.875, source: 'base' } },
  },
  {
    name: 'rolled back to one that scored below it: unchanged',
    got: () => referenceAfterRollback(BASE, row('step-000004', 0.8), 'k', false),
    want: BASE,
  },
  {
    name: 'rolled back to one scored on other prompts: unchanged',
    got: () => referenceAfterRollback(BASE, row('step-000004', 0.9, 'old'), 'k', false),
    want: BASE,
  },
  {
    name: 'rolled back to one never scored: unchanged',
    got: () => referenceAfterRollback(BASE, row('step-000004', null), 'k', false),
    want: BASE,
  },
  { name: 'rolled back to the base model: unchanged', got: () => referenceAfterRollback(BASE, null, 'k', false), want: BASE },
  {
    name: 'a reference on other prompts than the gate reads now: unchanged',
    got: () => referenceAfterRollback(BASE, row('step-000004', 0.9), 'k2', false),
    want: BASE,
  },
];

describe("competence gate: the reference's transitions", () => {
  for (const c of CASES) {
    it(c.name, () => {
      assert.deepEqual(c.got(), c.want);
    });
  }

  it("the retention policy spares the reference's checkpoints, which a confirmation may have to measure", () => {
    const all = [1, 2, 3, 4, 5].map((step) => ({ id: `step-00000${step}`, step, pinned: false }));
    assert.deepEqual(checkpointsToDelete(all, 2, ['step-000005']), ['step-000003', 'step-000002', 'step-000001']);
    assert.deepEqual(checkpointsToDelete(all, 2, ['step-000005', RISEN.source, 'step-000001']), ['step-000003']);
  });
});
