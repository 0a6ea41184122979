import type { CompetenceItem } from '../../tasks/competenceSet.js';

/**
 * Each task family's scores on a check's prompts (`competence_family_margin`, docs/learning-loop.md,
 * "The competence gate"). The overall margin is on the accuracy over all the prompts a check
 * answers, so a loss on one task is averaged away: a candidate that loses six of the 34 arithmetic
 * prompts of a 96-prompt sample (18 points) and gains four answers elsewhere is 2 points down,
 * within a 3-point margin. So decide.ts also holds each family (the prompts' `family`) to the
 * base model's accuracy on that family's prompts.
 */

/** One family's accuracy on a check's prompts: the candidate's, the base model's and the live policy's. */
export interface FamilyScore {
  family: string;
  n: number;
  accuracy: number;
  base: number;
  live: number;
}

/** Whether each prompt was answered right, by the candidate, the base model and the live policy. */
export interface FamilyAnswers {
  candidate: boolean[];
  base: boolean[];
  live: boolean[];
}

/** Each family's scores on these prompts; prompts without a family are not grouped (the overall margin covers them). */
export function familyScores(items: CompetenceItem[], a: FamilyAnswers): FamilyScore[] {
  const lengths = [a.candidate.length, a.base.length, a.live.length];
  if (lengths.some((n) => n !== items.length)) {
    throw new Error(`${items.length} prompts, but ${lengths.join(', ')} verdicts from the candidate, the base model and the live policy`);
  }
  const byFamily = new Map<string, { n: number; right: number; base: number; live: number }>();
  items.forEach((it, i) => {
    if (it.family === null) return;
    const f = byFamily.get(it.family) ?? { n: 0, right: 0, base: 0, live: 0 };
    f.n++;
    f.right += Number(a.candidate[i]);
    f.base += Number(a.base[i]);
    f.live += Number(a.live[i]);
    byFamily.set(it.family, f);
  });
  return [...byFamily].map(([family, f]) => ({ family, n: f.n, accuracy: f.right / f.n, base: f.base / f.n, live: f.live / f.n }));
}

/**
 * Each family's right answers, the candidate's and the base model's, for the gate's log line:
 * "arithmetic 30 of 34 (base 32), facts 17 of 24 (base 18)". Shows where a candidate lost what it
 * lost, held back or not.
 */
export function familySummary(scores: FamilyScore[]): string {
  const right = (share: number, n: number) => Math.round(share * n);
  return scores.map((f) => `${f.family} ${right(f.accuracy, f.n)} of ${f.n} (base ${right(f.base, f.n)})`).join(', ');
}
