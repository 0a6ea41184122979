import { runCheck, taskCheck } from './competenceCheck.js';
import type { Task } from './taskTypes.js';

/**
 * Whether a response answers the task correctly, in any style: the last number is the answer
 * (arithmetic, units); the fact is named and no other value of it is (facts); the verdict is right
 * and the correct result is named (grading). The rules are the task's competence check
 * ({@link taskCheck}), so a competence set written to JSON marks answers exactly the same way.
 */
export function isCorrect(task: Task, response: string): boolean {
  return runCheck(taskCheck(task), response);
}
