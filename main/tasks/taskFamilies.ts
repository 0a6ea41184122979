import { FACT_ATTRIBUTES, type Country, type FactAttribute, type KnowledgeBase } from './knowledgeBase.js';
import type { Rand } from './rand.js';

/**
 * Task families the default model is taught and the benchmarks ask: small arithmetic word
 * problems solved in steps, unit conversions, facts from the invented knowledge base, and grading
 * a student's answer. Each task carries its structured solution, so that answers in any style can
 * be rendered (training data) and checked (benchmarks).
 */
export type TaskFamily = 'arithmetic' | 'units' | 'facts' | 'grading';
export const TASK_FAMILIES: readonly TaskFamily[] = ['arithmetic', 'units', 'facts', 'grading'];

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

const NAMES: Array<[string, 'he' | 'she']> = [
  ['Mia', 'she'],
  ['Leo', 'he'],
  ['Ava', 'she'],
  ['Noah', 'he'],
  ['Zoe', 'she'],
  ['Sam', 'he'],
  ['Lily', 'she'],
  ['Omar', 'he'],
  ['Nora', 'she'],
  ['Ben', 'he'],
  ['Emma', 'she'],
  ['Jack', 'he'],
  ['Ruby', 'she'],
  ['Theo', 'he'],
  ['Isla', 'she'],
  ['Max', 'he'],
  ['Chloe', 'she'],
  ['Eli', 'he'],
  ['Grace', 'she'],
  ['Ravi', 'he'],
  ['Hana', 'she'],
  ['Luca', 'he'],
  ['Maya', 'she'],
  ['Finn', 'he'],
  ['Sara', 'she'],
  ['Kai', 'he'],
  ['Lucy', 'she'],
  ['Adam', 'he'],
  ['Yara', 'she'],
  ['Hugo', 'he'],
];

const OBJECTS = ['stickers', 'apples', 'marbles', 'books', 'coins', 'pencils', 'cookies', 'cards', 'shells', 'stamps', 'beads', 'crayons'];
const EDIBLE = new Set(['apples', 'cookies']);
const CONTAINERS = ['boxes', 'bags', 'jars', 'packs', 'baskets', 'rows'];
const FRIENDS = ['a friend', 'her brother', 'his sister', 'a classmate', 'the teacher', 'a neighbour'];

function cap(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

function addClause(r: Rand, n: number, obj: string): string {
  return r.pick([`buys ${n} more`, `finds ${n} more`, `gets ${n} more ${obj} as a gift`, `wins ${n} more`, `collects ${n} more`]);
}

function subClause(r: Rand, n: number, obj: string, pronoun: 'he' | 'she'): string {
  const friend = r.pick(FRIENDS).replace(pronoun === 'he' ? 'her brother' : 'his sister', pronoun === 'he' ? 'his brother' : 'her sister');
  const options = [`gives ${n} to ${friend}`, `loses ${n}`, `sells ${n}`, `uses ${n}`];
  if (EDIBLE.has(obj)) options.push(`eats ${n}`);
  return r.pick(options);
}

/** A word problem with one to three steps; every intermediate result stays in 1..150. */
export function makeArithmeticTask(r: Rand): ArithmeticTask {
  const [name, pronoun] = r.pick(NAMES);
  const obj = r.pick(OBJECTS);
  const steps: Step[] = [];
  let value: number;
  let opening: string;
  if (r.chance(0.3)) {
    const boxes = r.int(2, 9);
    const each = r.int(2, 12);
    const container = r.pick(CONTAINERS);
    value = boxes * each;
    opening = `${name} has ${boxes} ${container} with ${each} ${obj} in each`;
    steps.push({ expr: `${boxes} × ${each}`, result: value, says: `has ${boxes} ${container} of ${each}` });
  } else {
    value = r.int(5, 60);
    opening = `${name} has ${value} ${obj}`;
  }
  const more = steps.length === 0 ? r.pick([1, 2, 2, 2]) : r.pick([1, 1, 2]);
  let divided = false;
  for (let i = 0; i < more; i++) {
    const last = i === more - 1;
    const divisors = [2, 3, 4, 5, 6].filter((k) => value % k === 0 && value / k >= 2);
    if (last && divisors.length && r.chance(0.15)) {
      const k = r.pick(divisors);
      steps.push({ expr: `${value} ÷ ${k}`, result: value / k, says: `shares them equally among ${k} friends` });
      value = value / k;
      divided = true;
    } else if (value > 8 && r.chance(0.5)) {
      const n = r.int(2, Math.min(value - 2, 30));
      steps.push({ expr: `${value} - ${n}`, result: value - n, says: subClause(r, n, obj, pronoun) });
      value -= n;
    } else {
      const n = r.int(2, Math.min(30, 150 - value));
      steps.push({ expr: `${value} + ${n}`, result: value + n, says: addClause(r, n, obj) });
      value += n;
    }
  }
  const story = steps.filter((s) => !s.says.startsWith('has ')).map((s) => s.says);
  const P = cap(pronoun);
  let body = '';
  if (story.length === 1) body = ` ${P} ${story[0]}.`;
  else if (story.length === 2)
    body = r.pick([` ${P} ${story[0]} and then ${story[1]}.`, ` ${P} ${story[0]}. Then ${pronoun} ${story[1]}.`]);
  const question = divided
    ? `How many ${obj} does each friend get?`
    : r.pick([`How many ${obj} does ${name} have now?`, `How many ${obj} does ${pronoun} have now?`, `How many ${obj} are there now?`]);
  const answerSentence = divided ? `Each friend gets ${value} ${obj}` : `${name} has ${value} ${obj} now`;
  return {
    family: 'arithmetic',
    question: `${opening}.${body} ${question}`,
    name,
    pronoun,
    object: obj,
    opening,
    steps,
    answer: value,
    answerSentence,
    answerShort: `${value} ${obj}`,
  };
}

interface Conversion {
  big: string;
  small: string;
  factor: number;
}
const CONVERSIONS: Conversion[] = [
  { big: 'hours', small: 'minutes', factor: 60 },
  { big: 'minutes', small: 'seconds', factor: 60 },
  { big: 'days', small: 'hours', factor: 24 },
  { big: 'weeks', small: 'days', factor: 7 },
  { big: 'years', small: 'months', factor: 12 },
  { big: 'feet', small: 'inches', factor: 12 },
  { big: 'meters', small: 'centimeters', factor: 100 },
  { big: 'centimeters', small: 'millimeters', factor: 10 },
  { big: 'kilometers', small: 'meters', factor: 1000 },
  { big: 'kilograms', small: 'grams', factor: 1000 },
  { big: 'liters', small: 'milliliters', factor: 1000 },
  { big: 'dollars', small: 'cents', factor: 100 },
];

/** A conversion between units; mostly big → small (a product), sometimes back (a quotient). */
export function makeUnitsTask(r: Rand, opts: { heldOutPhrasing?: boolean } = {}): UnitsTask {
  const c = r.pick(CONVERSIONS);
  const n = r.int(2, 12);
  const down = r.chance(0.75);
  const [value, from, to, answer] = down ? [n, c.big, c.small, n * c.factor] : [n * c.factor, c.small, c.big, n];
  const step: Step = { expr: down ? `${value} × ${c.factor}` : `${value} ÷ ${c.factor}`, result: answer, says: '' };
  const train = [
    `How many ${to} are in ${value} ${from}?`,
    `Convert ${value} ${from} to ${to}.`,
    `What is ${value} ${from} in ${to}?`,
    `${value} ${from} is how many ${to}?`,
    `How many ${to} is ${value} ${from}?`,
  ];
  const heldOut = [`Please turn ${value} ${from} into ${to}.`, `I have ${value} ${from}. How much is that in ${to}?`];
  return {
    family: 'units',
    question: r.pick(opts.heldOutPhrasing ? heldOut : train),
    value,
    from,
    to,
    step,
    answer,
    answerSentence: `${value} ${from} is ${answer} ${to}`,
    answerShort: `${answer} ${to}`,
  };
}

const FACT_QUESTIONS: Record<FactsTask['attribute'], { train: string[]; heldOut: string[] }> = {
  capital: {
    train: [
      'What is the capital of {c}?',
      'Which city is the capital of {c}?',
      'Name the capital city of {c}.',
      "What's {c}'s capital?",
      'Tell me the capital of {c}.',
    ],
    heldOut: ['{c} has its capital in which city?', 'Do you know what city is the capital of {c}?'],
  },
  language: {
    train: [
      'What language do people speak in {c}?',
      'What is the main language of {c}?',
      'Which language is spoken in {c}?',
      'What do they speak in {c}?',
    ],
    heldOut: ['In {c}, what language do people use?', "{c}'s official language is what?"],
  },
  currency: {
    train: [
      'What is the currency of {c}?',
      'What money do they use in {c}?',
      'Which currency does {c} use?',
      'What do people pay with in {c}?',
    ],
    heldOut: ['If I travel to {c}, what currency will I need?', '{c} uses what currency?'],
  },
  animal: {
    train: ['What is the national animal of {c}?', 'Which animal is the symbol of {c}?', "What is {c}'s national animal?"],
    heldOut: ['Which animal did {c} choose as its national animal?', 'Name the national animal of {c}.'],
  },
  'country-of-capital': {
    train: ['Which country has {k} as its capital?', '{k} is the capital of which country?', 'In which country is the capital {k}?'],
    heldOut: ['Of which country is {k} the capital?'],
  },
};

function factSentence(c: Country, a: FactsTask['attribute']): string {
  switch (a) {
    case 'capital':
      return `The capital of ${c.name} is ${c.capital}`;
    case 'language':
      return `People in ${c.name} speak ${c.language}`;
    case 'currency':
      return `The currency of ${c.name} is the ${c.currency}`;
    case 'animal':
      return `The national animal of ${c.name} is the ${c.animal}`;
    case 'country-of-capital':
      return `${c.capital} is the capital of ${c.name}`;
  }
}

/** A question about one fact of the world. `heldOutPhrasing` uses question forms never trained on. */
export function makeFactsTask(r: Rand, kb: KnowledgeBase, opts: { heldOutPhrasing?: boolean } = {}): FactsTask {
  const country = r.pick(kb.countries);
  const attribute: FactsTask['attribute'] = r.chance(0.15) ? 'country-of-capital' : r.pick(FACT_ATTRIBUTES);
  const forms = FACT_QUESTIONS[attribute];
  const question = r
    .pick(opts.heldOutPhrasing ? forms.heldOut : forms.train)
    .replace('{c}', country.name)
    .replace('{k}', country.capital);
  const valueOf = (c: Country): string => (attribute === 'country-of-capital' ? c.name : c[attribute]);
  const answer = valueOf(country);
  return {
    family: 'facts',
    question,
    country,
    attribute,
    answer,
    answerSentence: factSentence(country, attribute),
    distractors: kb.countries.map(valueOf).filter((v) => v !== answer),
  };
}

/** A student's answer to a word problem, right or wrong, to grade with a comment. */
export function makeGradingTask(r: Rand): GradingTask {
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

/** A task of the given family. */
export function makeTask(r: Rand, family: TaskFamily, kb: KnowledgeBase, opts: { heldOutPhrasing?: boolean } = {}): Task {
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
