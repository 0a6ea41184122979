import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { familyScores, familySummary, type FamilyScore } from '../../../main/rl/gate/families.js';
import type { CompetenceItem } from '../../../main/tasks/competenceSet.js';

const item = (family: string | null, i: number): CompetenceItem => ({
  id: `p${i}`,
  family,
  messages: [{ role: 'user', content: `prompt ${i}` }],
  check: { type: 'regex', pattern: '^x$' },
});

describe("competence gate: each task family's scores", () => {
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
});
