import type { Task } from './taskTypes.js';

const NUMBER = /\d+(?:\.\d+)?/g;
const NEGATIVE_VERDICT = /\b(incorrect|not correct|not quite|wrong|should be|mistake|slip|isn'?t right|not right)\b/i;

function numbersIn(text: string): number[] {
  return [...text.matchAll(NUMBER)].map((m) => Number(m[0]));
}

function mentions(text: string, phrase: string): boolean {
  const esc = phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}])${esc}($|[^\\p{L}])`, 'iu').test(text);
}

/**
 * Whether a response answers the task correctly, in any style: the last number is the answer
 * (arithmetic, units); the fact is named and no other value of it is (facts); the verdict is right
 * and the correct result is named (grading).
 */
export function isCorrect(task: Task, response: string): boolean {
  switch (task.family) {
    case 'arithmetic':
    case 'units': {
      const nums = numbersIn(response);
      return nums.length > 0 && nums[nums.length - 1] === task.answer;
    }
    case 'facts': {
      if (!mentions(response, task.answer)) return false;
      // Other values may contain the answer's words ("ruble" in "ruble piece"): look past the answer.
      const rest = response.replace(new RegExp(task.answer.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), ' ');
      return !task.distractors.some((d) => mentions(rest, d));
    }
    case 'grading': {
      const saysWrong = NEGATIVE_VERDICT.test(response);
      if (saysWrong === task.correct) return false;
      return numbersIn(response).includes(task.problem.answer);
    }
  }
}
