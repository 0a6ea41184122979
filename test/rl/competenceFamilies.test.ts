import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { familyScores, familySummary, familyVerdict, type FamilyScore } from '../../main/rl/competenceFamilies.js';
import type { CompetenceItem } from '../../main/tasks/competenceSet.js';

const item = (family: string | null, i: number): CompetenceItem => ({
  id: `p${i}`,
  family,
  messages: [{ role: 'user', content: `prompt ${i}` }],
  check: { type: 'regex', pattern: '^x$' },
});

describe('competence gate: task families', () => {
  it("scores each family's prompts for the candidate, the base model and the live policy, leaving out prompts without a family", () => {
    const items = ['sums', 'facts', 'sums', null, 'sums', 'facts', 'sums', null].map(item);
    const candidate = [true, false, false, false, true, true, false, true];
    const base = [true, true, true, true, true, false, true, false];
    const live = [true, true, false, true, true, true, true, false];
    assert.deepEqual(familyScores(items, { candidate, base, live }), [
      { family: 'sums', n: 4, accuracy: 0.5, base: 1, live: 0.75 },
      { family: 'facts', n: 2, accuracy: 0.5, base: 0.5, live: 1 },
    ]);
    assert.throws(
      () => familyScores(items, { candidate: candidate.slice(1), base, live }),
      /8 prompts, but 7, 8, 8 verdicts from the candidate, the base model and the live policy/,
    );
  });

  const scores: FamilyScore[] = [
    { family: 'facts', n: 24, accuracy: 0.5, base: 0.75, live: 0.75 },
    { family: 'sums', n: 34, accuracy: 0.5, base: 0.8, live: 0.7 },
    { family: 'units', n: 19, accuracy: 0.9, base: 0.6, live: 0.6 },
  ];

  it("sums each family up for the gate's log line: the candidate's right answers and the base model's", () => {
    assert.equal(familySummary(scores), 'facts 12 of 24 (base 18), sums 17 of 34 (base 27), units 17 of 19 (base 11)');
    assert.equal(familySummary([]), '');
  });

  it('holds back a candidate when one family falls past the margin, naming the family that fell furthest', () => {
    const v = familyVerdict(scores, 0.15);
    assert.equal(v.heldBack, true);
    assert.equal(
      v.reason,
      'held back by the competence gate: 50.0 % on the 34 held-out sums prompts, 30.0 points below the base model (80.0 %) ' +
        'and 20.0 below the live policy; the family margin is 15.0 points',
    );
    assert.equal(familyVerdict(scores, 0.3).heldBack, false, 'a drop of exactly the margin passes');
    assert.deepEqual(familyVerdict(scores.slice(2), 0), { heldBack: false, reason: null }, 'a family that gained is never held back');
    assert.deepEqual(familyVerdict([], 0), { heldBack: false, reason: null });
    const tie = familyVerdict([scores[1], { ...scores[1], family: 'arith' }], 0.1);
    assert.match(tie.reason!, /held-out arith prompts/, 'ties go to the first name');
  });

  it('a family the live policy had already lost past the margin holds a candidate back only when it falls further', () => {
    const lost = { family: 'sums', n: 34, base: 0.8, live: 0.5 };
    assert.deepEqual(familyVerdict([{ ...lost, accuracy: 0.5 }], 0.15), { heldBack: false, reason: null });
    assert.deepEqual(familyVerdict([{ ...lost, accuracy: 0.6 }], 0.15), { heldBack: false, reason: null }, 'winning some back goes live');
    assert.match(
      familyVerdict([{ ...lost, accuracy: 0.45 }], 0.15).reason!,
      /35\.0 points below the base model \(80\.0 %\) and 5\.0 below the live policy/,
    );
  });
});
