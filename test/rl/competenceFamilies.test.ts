import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { familyScores, familyVerdict } from '../../main/rl/competenceFamilies.js';
import type { CompetenceItem } from '../../main/tasks/competenceSet.js';

const item = (family: string | null, i: number): CompetenceItem => ({
  id: `p${i}`,
  family,
  messages: [{ role: 'user', content: `prompt ${i}` }],
  check: { type: 'regex', pattern: '^x$' },
});

describe('competence gate: task families', () => {
  const items = ['sums', 'facts', 'sums', null, 'sums', 'facts', 'sums', null].map(item);
  const base = [true, true, true, true, true, false, true, false];

  it("scores each family's prompts against the base model's answers to them, leaving out prompts without a family", () => {
    const cand = [true, false, false, false, true, true, false, true];
    assert.deepEqual(familyScores(items, cand, base), [
      { family: 'sums', n: 4, accuracy: 0.5, base: 1 },
      { family: 'facts', n: 2, accuracy: 0.5, base: 0.5 },
    ]);
    assert.throws(() => familyScores(items, cand.slice(1), base), /8 prompts, 7 verdicts and 8 of the base model's/);
  });

  it('holds back a candidate when one family falls past the margin, naming the family that fell furthest', () => {
    const scores = [
      { family: 'facts', n: 24, accuracy: 0.5, base: 0.75 },
      { family: 'sums', n: 34, accuracy: 0.5, base: 0.8 },
      { family: 'units', n: 19, accuracy: 0.9, base: 0.6 },
    ];
    const v = familyVerdict(scores, 0.15);
    assert.equal(v.heldBack, true);
    assert.equal(
      v.reason,
      'held back by the competence gate: 50.0 % on the 34 held-out sums prompts, 30.0 points below the base model (80.0 %); the family margin is 15.0 points',
    );
    assert.equal(familyVerdict(scores, 0.3).heldBack, false, 'a drop of exactly the margin passes');
    assert.deepEqual(familyVerdict(scores.slice(2), 0), { heldBack: false, reason: null }, 'a family that gained is never held back');
    assert.deepEqual(familyVerdict([], 0), { heldBack: false, reason: null });
    const tie = familyVerdict([scores[1], { ...scores[1], family: 'arith' }], 0.1);
    assert.match(tie.reason!, /held-out arith prompts/, 'ties go to the first name');
  });
});
