import type { Country, FactAttribute } from './knowledgeBase.js';

/**
 * Task families the default model is taught and the benchmarks ask: small arithmetic word
 * problems solved in steps, unit conversions, facts from the invented knowledge base, and grading
 * a student's answer. Each task carries its structured solution, so that answers in any style can
 * be rendered (training data) and checked (benchmarks).
 */
export type TaskFamily = 'arithmetic' | 'units' | 'facts' | 'grading';

/** One calculation: `expr` = `result`, e.g. "12 + 7" = 19, with what it means in the story. */
export interface Step {
  expr: string;
  result: number;
  /** A verb phrase in the present tense for the subject, e.g. "buys 7 more". */
  says: string;
}

export interface ArithmeticTask {
  family: 'arithmetic';
  question: string;
  name: string;
  pronoun: 'he' | 'she';
  object: string;
  /** How the story starts, e.g. "Mia has 12 stickers". */
  opening: string;
  /** The first step when the start itself is computed (boxes × items), else absent. */
  steps: Step[];
  answer: number;
  /** The answer as a sentence without the final period, e.g. "Mia has 14 stickers now". */
  answerSentence: string;
  /** The answer with its unit, e.g. "14 stickers". */
  answerShort: string;
}

export interface UnitsTask {
  family: 'units';
  question: string;
  value: number;
  from: string;
  to: string;
  step: Step;
  answer: number;
  answerSentence: string;
  answerShort: string;
}

export interface FactsTask {
  family: 'facts';
  question: string;
  country: Country;
  attribute: FactAttribute | 'country-of-capital';
  /** The answer: a capital, a language, … or, for country-of-capital, the country. */
  answer: string;
  answerSentence: string;
  /** Every other value the same attribute takes in the world (a wrong answer names one). */
  distractors: string[];
}

export interface GradingTask {
  family: 'grading';
  question: string;
  problem: ArithmeticTask;
  student: string;
  studentPronoun: 'he' | 'she';
  given: number;
  correct: boolean;
  /** Index of the first step where the student went wrong (for wrong answers). */
  wrongStep: number;
}

export type Task = ArithmeticTask | UnitsTask | FactsTask | GradingTask;
