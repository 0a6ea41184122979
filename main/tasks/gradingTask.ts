import { cap, makeArithmeticTask, NAMES } from './arithmeticTask.js';
import type { Rng } from '../util/random.js';
import type { GradingTask } from './taskTypes.js';

/** A student's answer to a word problem, right or wrong, to grade with a comment. */
export function makeGradingTask(r: Rng): GradingTask {
  let problem = makeArithmeticTask(r);
  while (problem.steps.length < 2 && r.chance(0.6)) problem = makeArithmeticTask(r);
  const [student, studentPronoun] = r.pick(NAMES.filter(([n]) => n !== problem.name));
  const correct = r.chance(0.5);
  let given = problem.answer;
  const wrongStep = r.int(0, problem.steps.length - 1);
  if (!correct) {
    const delta = r.pick([-10, -2, -1, 1, 2, 10]);
    given = Math.max(0, problem.answer + delta);
    if (given === problem.answer) given = problem.answer + 1;
  }
  const q = problem.question;
  const question = r.pick([
    `Can you grade this? Problem: ${q} Student's answer: ${given}`,
    `My student ${student} answered ${given} to this problem: ${q} Please write a comment.`,
    `Check ${student}'s homework. Question: ${q} ${student} wrote: ${given}`,
    `Grade ${student}'s answer. ${q} Answer given: ${given}`,
    `Write a grading comment for ${student}. The problem: ${q} ${cap(studentPronoun)} answered ${given}.`,
  ]);
  return { family: 'grading', question, problem, student, studentPronoun, given, correct, wrongStep };
}
