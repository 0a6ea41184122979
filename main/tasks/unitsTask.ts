import type { Rng } from '../util/random.js';
import type { Step, UnitsTask } from './taskTypes.js';

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
export function makeUnitsTask(r: Rng, opts: { heldOutPhrasing?: boolean } = {}): UnitsTask {
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
