import type { Rng } from '../util/random.js';
import type { ArithmeticTask, Step } from './taskTypes.js';

/** First names with their pronoun (students in grading tasks come from here too). */
export const NAMES: Array<[string, 'he' | 'she']> = [
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

/** The string with its first letter upper-cased. */
export function cap(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

function addClause(r: Rng, n: number, obj: string): string {
  return r.pick([`buys ${n} more`, `finds ${n} more`, `gets ${n} more ${obj} as a gift`, `wins ${n} more`, `collects ${n} more`]);
}

function subClause(r: Rng, n: number, obj: string, pronoun: 'he' | 'she'): string {
  const friend = r.pick(FRIENDS).replace(pronoun === 'he' ? 'her brother' : 'his sister', pronoun === 'he' ? 'his brother' : 'her sister');
  const options = [`gives ${n} to ${friend}`, `loses ${n}`, `sells ${n}`, `uses ${n}`];
  if (EDIBLE.has(obj)) options.push(`eats ${n}`);
  return r.pick(options);
}

/** A word problem with one to three steps; every intermediate result stays in 1..150. */
export function makeArithmeticTask(r: Rng): ArithmeticTask {
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
