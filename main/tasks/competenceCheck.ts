/**
 * The checks of a competence set (`clawloop_competence.jsonl`): how an answer to a held-out prompt
 * is marked right or wrong, whatever its style. A check is JSON, so a model folder can ship its
 * own set without code:
 *
 *   {"type": "last_number", "value": 46}          the last number in the answer is 46
 *   {"type": "has_number", "value": 33}           33 appears among the answer's numbers
 *   {"type": "names", "value": "Thorport", "not": ["Relfaindford"]}
 *                                                 "Thorport" is named (as a word, any case) and,
 *                                                 apart from it, none of `not` is
 *   {"type": "regex", "pattern": "…", "flags": "i"}   the regular expression matches
 *   {"type": "all", "checks": [ … ]}              every check holds
 *   {"type": "not", "check": { … }}               the check does not hold
 */
import { z } from 'zod';
import type { Task } from './taskTypes.js';

export type CompetenceCheck =
  | { type: 'last_number'; value: number }
  | { type: 'has_number'; value: number }
  | { type: 'names'; value: string; not?: string[] }
  | { type: 'regex'; pattern: string; flags?: string }
  | { type: 'all'; checks: CompetenceCheck[] }
  | { type: 'not'; check: CompetenceCheck };

export const CHECK_TYPES = ['last_number', 'has_number', 'names', 'regex', 'all', 'not'] as const;

export const CompetenceCheckSchema: z.ZodType<CompetenceCheck> = z.lazy(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('last_number'), value: z.number() }).strict(),
    z.object({ type: z.literal('has_number'), value: z.number() }).strict(),
    z.object({ type: z.literal('names'), value: z.string().min(1), not: z.array(z.string().min(1)).optional() }).strict(),
    z
      .object({
        type: z.literal('regex'),
        pattern: z.string().min(1),
        flags: z
          .string()
          .regex(/^[imsu]*$/, 'flags may only use i, m, s and u')
          .optional(),
      })
      .strict(),
    z.object({ type: z.literal('all'), checks: z.array(CompetenceCheckSchema).min(1) }).strict(),
    z.object({ type: z.literal('not'), check: CompetenceCheckSchema }).strict(),
  ]),
);

const NUMBER = /\d+(?:\.\d+)?/g;

/** The verdict words of a grading comment that says the pupil was wrong (shared with isCorrect). */
export const NEGATIVE_VERDICT = /\b(incorrect|not correct|not quite|wrong|should be|mistake|slip|isn'?t right|not right)\b/i;

export function numbersIn(text: string): number[] {
  return [...text.matchAll(NUMBER)].map((m) => Number(m[0]));
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `phrase` occurs in `text` as a whole word (not inside a longer word), in any case. */
export function mentions(text: string, phrase: string): boolean {
  return new RegExp(`(^|[^\\p{L}])${escapeRegex(phrase)}($|[^\\p{L}])`, 'iu').test(text);
}

/** Whether `answer` satisfies the check. A regex that does not compile is refused when the set is loaded. */
export function runCheck(check: CompetenceCheck, answer: string): boolean {
  switch (check.type) {
    case 'last_number': {
      const nums = numbersIn(answer);
      return nums.length > 0 && nums[nums.length - 1] === check.value;
    }
    case 'has_number':
      return numbersIn(answer).includes(check.value);
    case 'names': {
      if (!mentions(answer, check.value)) return false;
      // Other values may contain the answer's words ("ruble" in "ruble piece"): look past the answer.
      const rest = answer.replace(new RegExp(escapeRegex(check.value), 'gi'), ' ');
      return !(check.not ?? []).some((d) => mentions(rest, d));
    }
    case 'regex':
      return new RegExp(check.pattern, check.flags ?? '').test(answer);
    case 'all':
      return check.checks.every((c) => runCheck(c, answer));
    case 'not':
      return !runCheck(check.check, answer);
  }
}

/** Throws with the path of the first regular expression that does not compile. */
export function validateCheckPatterns(check: CompetenceCheck, where = 'check'): void {
  if (check.type === 'regex') {
    try {
      new RegExp(check.pattern, check.flags ?? '');
    } catch (err) {
      throw new Error(`${where}.pattern is not a valid regular expression: ${(err as Error).message}`);
    }
  } else if (check.type === 'all') check.checks.forEach((c, i) => validateCheckPatterns(c, `${where}.checks[${i}]`));
  else if (check.type === 'not') validateCheckPatterns(check.check, `${where}.check`);
}

/** The check that marks an answer to a generated task exactly as {@link isCorrect} does. */
export function taskCheck(task: Task): CompetenceCheck {
  switch (task.family) {
    case 'arithmetic':
    case 'units':
      return { type: 'last_number', value: task.answer };
    case 'facts':
      return { type: 'names', value: task.answer, not: task.distractors };
    case 'grading': {
      const saysWrong: CompetenceCheck = { type: 'regex', pattern: NEGATIVE_VERDICT.source, flags: NEGATIVE_VERDICT.flags };
      return {
        type: 'all',
        checks: [task.correct ? { type: 'not', check: saysWrong } : saysWrong, { type: 'has_number', value: task.problem.answer }],
      };
    }
  }
}
