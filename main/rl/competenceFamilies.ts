import type { CompetenceItem } from '../tasks/competenceSet.js';
import { percent } from './competenceGate.js';

/**
 * The per-family side of the competence gate (`competence_family_margin`, docs/learning-loop.md,
 * "The competence gate"). The overall margin is on the accuracy over all the prompts a check
 * answers, so a candidate that forgets most of one task, on a set of several, can stay within it:
 * 18 points lost on 34 arithmetic prompts are 6 points on 96. Each task family (the prompts'
 * `family`) is therefore also held to the base model's accuracy on that family's prompts.
 */

/** One family's accuracy on a check's prompts, the candidate's against the base model's. */
export interface FamilyScore {
  family: string;
  n: number;
  accuracy: number;
  base: number;
}

/** Each family's scores on these prompts; prompts without a family are not grouped (the overall margin covers them). */
export function familyScores(items: CompetenceItem[], correct: boolean[], baseCorrect: boolean[]): FamilyScore[] {
  if (correct.length !== items.length || baseCorrect.length !== items.length) {
    throw new Error(`${items.length} prompts, ${correct.length} verdicts and ${baseCorrect.length} of the base model's`);
  }
  const byFamily = new Map<string, { n: number; right: number; baseRight: number }>();
  items.forEach((it, i) => {
    if (it.family === null) return;
    const f = byFamily.get(it.family) ?? { n: 0, right: 0, baseRight: 0 };
    f.n++;
    if (correct[i]) f.right++;
    if (baseCorrect[i]) f.baseRight++;
    byFamily.set(it.family, f);
  });
  return [...byFamily].map(([family, f]) => ({ family, n: f.n, accuracy: f.right / f.n, base: f.baseRight / f.n }));
}

/**
 * Whether a candidate is held back because a family fell more than `margin` below the base model's
 * accuracy on it; the reason names the family that fell furthest (ties: the first in name order).
 */
export function familyVerdict(scores: FamilyScore[], margin: number): { heldBack: boolean; reason: string | null } {
  const drop = (f: FamilyScore) => f.base - f.accuracy;
  const worst = [...scores].sort((a, b) => drop(b) - drop(a) || a.family.localeCompare(b.family))[0];
  // As in competenceVerdict, a drop of exactly the margin passes.
  if (!worst || drop(worst) <= margin + 1e-9) return { heldBack: false, reason: null };
  return {
    heldBack: true,
    reason:
      `held back by the competence gate: ${percent(worst.accuracy)} on the ${worst.n} held-out ${worst.family} prompts, ` +
      `${(100 * drop(worst)).toFixed(1)} points below the base model (${percent(worst.base)}); the family margin is ${(100 * margin).toFixed(1)} points`,
  };
}
