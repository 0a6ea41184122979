import fs from 'node:fs';
import { resourcePath } from '../resources.js';
import { Rng } from '../util/random.js';

/**
 * A small invented world (countries and their capital, language, currency and national animal)
 * that the default model learns and the benchmarks ask about. Invented, so that what the model
 * knows is exactly what it was taught and answers can be checked without a reference corpus.
 */
export interface Country {
  name: string;
  capital: string;
  language: string;
  currency: string;
  animal: string;
}

export interface KnowledgeBase {
  seed: number;
  countries: Country[];
}

export type FactAttribute = 'capital' | 'language' | 'currency' | 'animal';
export const FACT_ATTRIBUTES: readonly FactAttribute[] = ['capital', 'language', 'currency', 'animal'];

const ONSETS = ['b', 'br', 'd', 'dr', 'f', 'g', 'k', 'kel', 'l', 'm', 'n', 'p', 'r', 's', 't', 'th', 'v', 'z', 'st', 'qu'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ia', 'or', 'el', 'an'];
const CODAS = ['', 'n', 'r', 'l', 's', 'th', 'nd', 'm', 'x', 'sk'];
const COUNTRY_ENDINGS = ['ia', 'land', 'ovia', 'ara', 'eth', 'istan', 'ora', 'una'];
const CITY_ENDINGS = ['ton', 'mere', 'holm', 'ford', 'ville', 'burg', 'stad', 'port', 'wick', 'dale'];
const CURRENCY_ENDINGS = ['o', 'a', 'en', 'ar', 'is', 'un'];
const ANIMALS = [
  'snow fox',
  'red heron',
  'river otter',
  'golden eagle',
  'grey wolf',
  'sea turtle',
  'blue whale',
  'mountain goat',
  'black bear',
  'white stork',
  'striped hyena',
  'green parrot',
  'desert lynx',
  'silver salmon',
  'spotted deer',
  'horned owl',
  'wild horse',
  'cave bat',
  'ring-tailed lemur',
  'sand cat',
  'water buffalo',
  'red panda',
  'snowy owl',
  'arctic hare',
  'king cobra',
  'pink flamingo',
  'sea lion',
  'honey badger',
  'barn swallow',
  'marsh frog',
];

function capitalise(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

function stem(r: Rng, syllables: number): string {
  let s = '';
  for (let i = 0; i < syllables; i++) s += r.pick(ONSETS) + r.pick(VOWELS) + (i === syllables - 1 ? r.pick(CODAS) : '');
  return s;
}

/** A fresh invented world; deterministic in `seed`. Names are unique across the whole world. */
export function makeKnowledgeBase(seed: number, count = 30): KnowledgeBase {
  const r = new Rng(seed);
  const used = new Set<string>();
  const unique = (make: () => string): string => {
    for (;;) {
      const s = make();
      if (s.length >= 4 && s.length <= 12 && !used.has(s)) {
        used.add(s);
        return s;
      }
    }
  };
  const countries: Country[] = [];
  const animals = r.shuffle(ANIMALS);
  for (let i = 0; i < count; i++) {
    const base = unique(() => stem(r, r.int(1, 2)));
    const name = capitalise(base + r.pick(COUNTRY_ENDINGS));
    used.add(name);
    const capital = unique(() => capitalise(stem(r, r.int(1, 2)) + r.pick(CITY_ENDINGS)));
    const language = unique(() => capitalise(stem(r, 1) + r.pick(['ish', 'ese', 'ic', 'ian', 'i'])));
    // One invented word each, so no currency's name is part of another's.
    const currency = unique(() => stem(r, 1).replace(/[^a-z]$/, '') + r.pick(CURRENCY_ENDINGS));
    countries.push({ name, capital, language, currency, animal: animals[i % animals.length] });
  }
  return { seed, countries };
}

/** Where the shipped world lives (the one the default model was trained on). */
export function defaultKnowledgeBasePath(): string {
  return resourcePath('tasks', 'knowledge-base.json');
}

let cached: KnowledgeBase | null = null;

/** The shipped world, read once. */
export function loadKnowledgeBase(file = defaultKnowledgeBasePath()): KnowledgeBase {
  if (cached && file === defaultKnowledgeBasePath()) return cached;
  let kb: KnowledgeBase;
  try {
    kb = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read the knowledge base ${file}: ${(err as Error).message}`);
  }
  if (!Array.isArray(kb.countries) || kb.countries.length === 0) throw new Error(`${file}: no countries`);
  if (file === defaultKnowledgeBasePath()) cached = kb;
  return kb;
}
