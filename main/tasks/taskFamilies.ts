import { makeArithmeticTask } from './arithmeticTask.js';
import { makeFactsTask } from './factsTask.js';
import { makeGradingTask } from './gradingTask.js';
import type { KnowledgeBase } from './knowledgeBase.js';
import type { Rng } from '../util/random.js';
import type { Task, TaskFamily } from './taskTypes.js';
import { makeUnitsTask } from './unitsTask.js';

export type { ArithmeticTask, FactsTask, GradingTask, Step, Task, TaskFamily, UnitsTask } from './taskTypes.js';
export { isCorrect } from './answerCheck.js';

export const TASK_FAMILIES: readonly TaskFamily[] = ['arithmetic', 'units', 'facts', 'grading'];

/** A task of the given family. */
export function makeTask(r: Rng, family: TaskFamily, kb: KnowledgeBase, opts: { heldOutPhrasing?: boolean } = {}): Task {
  switch (family) {
    case 'arithmetic':
      return makeArithmeticTask(r);
    case 'units':
      return makeUnitsTask(r, opts);
    case 'facts':
      return makeFactsTask(r, kb, opts);
    case 'grading':
      return makeGradingTask(r);
  }
}
