import { FACT_ATTRIBUTES, type Country, type KnowledgeBase } from './knowledgeBase.js';
import type { Rng } from '../util/random.js';
import type { FactsTask } from './taskTypes.js';

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
export function makeFactsTask(r: Rng, kb: KnowledgeBase, opts: { heldOutPhrasing?: boolean } = {}): FactsTask {
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
