/**
 * Phrase set 4 (feedback.ts): user replies as people type them, not as the phrase sets compose
 * them: casual (lower case, "pls", "u"), with typos, in three words, sarcastic, indirect ("my
 * teacher will know a bot wrote this"), or wrapped in many words. The meaning stays the reaction's,
 * so the judges learn it through the noise (issue 38: feedback phrased in people's own words).
 */
import type { Rng } from '../../main/util/random.js';
import type { Reaction } from './feedback.js';

/** Three-word (or so) replies per reaction. */
const TERSE: Partial<Record<Reaction, string[]>> = {
  'want-plain': ['no formatting pls', 'plain text pls', 'lose the bold', 'too many stars', 'no bullet points'],
  'want-terse': ['shorter pls', 'tl;dr?', 'just the number', 'too long', 'way too wordy'],
  'want-warm': ['bit cold, no?', 'be nicer pls', 'so robotic', 'warmer tone pls'],
  'want-markdown': ['use headings pls', 'wall of text', 'bullets would help', 'format it pls'],
  satisfied: ['perfect ty', 'nice one', 'got it thx', 'great, next', 'cheers'],
};

/** Sarcastic replies: the complaint said as praise. */
const SARCASTIC: Partial<Record<Reaction, string[]>> = {
  'want-plain': ['oh great, more bold stars, exactly what my essay needed', 'love how it looks like a slide deck. not.'],
  'want-terse': ['wow, a whole novel for one number, thanks', 'could it be any longer? honestly impressive'],
  'want-warm': ['thanks for the warm welcome, robot', 'so friendly. really. like a tax form'],
  'want-markdown': ['ah yes, one giant paragraph, so easy to scan', 'love hunting for the answer in this block'],
};

/** Indirect replies: the wish is implied by a reason, never named. */
const INDIRECT: Partial<Record<Reaction, string[]>> = {
  'want-plain': ['my teacher will know a bot wrote this with all those symbols', 'I have to paste this into a plain email'],
  'want-terse': ['I am reading this on my watch', 'I only have a minute between meetings'],
  'want-warm': ['it has been a rough day and that felt a bit curt', 'my kid reads these too, maybe be kinder'],
  'want-markdown': ['I will be skimming this on my phone later', 'I need to find each step at a glance'],
};

const WORDY_OPEN = [
  'So I was reading this on the bus and honestly, ',
  'Okay, I appreciate the effort, I really do, but ',
  'Look, I have been thinking about how you answer and ',
];
const WORDY_CLOSE = [
  ' — anyway, that is just how I feel about it.',
  ', if that makes sense? Thanks for bearing with me.',
  '. Sorry for the long message.',
];

/** One or two typos: a swapped pair, a dropped or a doubled letter. */
function typos(r: Rng, s: string): string {
  let out = s;
  for (let n = r.int(1, 2); n > 0; n--) {
    const words = out.split(' ');
    const i = r.int(0, words.length - 1);
    const w = words[i];
    if (w.length < 4 || /\d/.test(w)) continue; // figures stay as typed: a correction names them
    const k = r.int(1, w.length - 2);
    const kind = r.int(0, 2);
    words[i] =
      kind === 0
        ? w.slice(0, k) + w[k + 1] + w[k] + w.slice(k + 2)
        : kind === 1
          ? w.slice(0, k) + w.slice(k + 1)
          : w.slice(0, k) + w[k] + w.slice(k);
    out = words.join(' ');
  }
  return out;
}

function casual(s: string): string {
  return s
    .toLowerCase()
    .replace(/[.!]+$/, '')
    .replace(/\byou\b/g, 'u')
    .replace(/\byour\b/g, 'ur')
    .replace(/\bplease\b/g, 'pls');
}

/**
 * The reply `s` of reaction `kind` as a person might type it (sometimes `s` itself). A correction
 * of a wrong answer keeps its words (only case and typos change): the hint judge's hint repeats
 * the figures it names.
 */
export function reword(r: Rng, kind: Reaction, s: string): string {
  const own = (pool: Partial<Record<Reaction, string[]>>) => pool[kind];
  const ways: Array<() => string | null> = [
    () => s,
    () => casual(s),
    () => typos(r, s),
    () => (own(TERSE) ? r.pick(own(TERSE)!) : null),
    () => (own(SARCASTIC) ? r.pick(own(SARCASTIC)!) : null),
    () => (own(INDIRECT) ? r.pick(own(INDIRECT)!) : null),
    () => (kind === 'unclear' ? null : `${r.pick(WORDY_OPEN)}${s.replace(/[.!?]$/, '')}${r.pick(WORDY_CLOSE)}`),
  ];
  const out = r.pick(kind === 'wrong-answer' ? ways.slice(0, 3) : ways)() ?? s;
  return r.chance(0.25) ? typos(r, casual(out)) : out;
}
