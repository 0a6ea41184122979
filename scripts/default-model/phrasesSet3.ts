import type { Style } from './styles.js';
import type { StyleWish } from './phrasesSet1.js';

/**
 * Phrase set 3, in the judge's training phase (`Recipe.judge`): praise that names
 * what it praises, often with the words complaints use ("short", "kind", "no formatting",
 * "nothing else"). The step-4400 judges read such thanks as complaints: every shipped persona's
 * thank-yous that named a quality or said the answer sufficed were marked −1 (bench:judge-replies).
 * Keyed by the style of the answer praised, so the praise fits what it reads. Written afresh: no
 * sentence of a persona file, shipped or held out, and none of their constructions copied.
 */
export const QUALITY_PRAISE: Record<Style, string[]> = {
  terse: [
    'short and to the point',
    'one line, just right',
    'quick and clear',
    'that is the length I like',
    'nothing extra, good',
    'no padding this time',
    'brief, the way I asked',
    'straight to the answer',
    'you kept it short',
    'easy to read at a glance',
    'no long explanation, perfect',
    'the result and nothing else',
    'short enough to read on the go',
    'not a word too many',
  ],
  plain: [
    'plain sentences, that works',
    'no bold and no lists, good',
    'reads like normal writing',
    'clean text, no symbols',
    'every step written out, thanks',
    'the working in sentences is what I wanted',
    'no headings this time, much better',
    'that sounds like a person wrote it',
    'simple prose, easy to copy',
    'without the formatting it looks right',
    'the steps are all there and it reads naturally',
    'no markdown clutter, great',
  ],
  warm: [
    'kind and clear',
    'friendly without being vague',
    'encouraging, and it names the step',
    'gentle, and it says exactly what went wrong',
    'the praise is specific, well done',
    'a warm comment with the actual numbers',
    'not harsh at all this time',
    'that will encourage them',
    'supportive and precise',
    'it points to the exact calculation, nicely',
    'soft tone, clear feedback',
    'caring and to the point',
  ],
  markdown: [
    'the list makes it easy to scan',
    'clear headings, thanks',
    'bold answer and numbered steps, great',
    'nicely structured',
    'the layout helps a lot',
    'easy to skim with the bullets',
    'well organised, no wall of text',
    'the heading and the list work well',
  ],
};
/** Praise that says the answer did its job, without naming a style. */
export const SUFFICED = [
  'that covers it',
  'nothing else needed',
  'that answers my question',
  'I have what I need now',
  'that settles it',
  'copied it down',
  'written down, done',
  'no further questions',
  'that closes it for me',
  'that fills the gap',
  'sorted',
  'no need to change anything',
  'I will keep that one',
];
export const QUALITY_CLOSES = ['thanks', 'thank you', 'cheers', 'great', 'perfect', 'good', 'nice work', 'appreciated', 'exactly that'];

/**
 * Phrase set 3's complaints, the other side of its praise: the same qualities, named as what the
 * answer lacks or as a request, often as a statement of the problem rather than an order. Without
 * them the phase taught the judges that naming a quality is praise: a first run read 0 % of one
 * persona's complaints ("… plain words only.") as complaints.
 */
export const QUALITY_FAULTS: Record<StyleWish, string[]> = {
  'want-terse': [
    'that is more than I asked for',
    'too many words for a small question',
    'I asked one small thing and got a page',
    'I did not need the working',
    'I stopped reading halfway',
    'there is a lot of extra in there',
    'the answer is buried in the text',
  ],
  'want-plain': [
    'the asterisks show up in my document',
    'the headings look odd where I paste this',
    'the numbered list looks robotic',
    'it is full of symbols',
    'it does not read like normal writing',
    'the bold bits look strange in my notes',
    'the steps are in a list instead of sentences',
  ],
  'want-warm': [
    'it sounds cold',
    'there is nothing kind in it',
    'it does not say which step was right',
    'a child would feel told off',
    'it is vague about what they did',
    'the tone is flat',
    'it only gives a verdict',
  ],
  'want-markdown': ['it is a wall of text', 'hard to skim like this', 'there is no structure at all', 'the steps run together'],
};
export const QUALITY_REQUESTS: Record<StyleWish, string[]> = {
  'want-terse': [
    'the number on its own is enough',
    'one short line next time',
    'the answer and nothing else',
    'keep it short enough to read on the go',
    'just the result, no steps',
    'a few words would do',
  ],
  'want-plain': [
    'ordinary sentences only',
    'drop the symbols',
    'no bold, no lists, please',
    'write it the way a person would',
    'put the steps into sentences',
    'clean text without markdown',
  ],
  'want-warm': [
    'add a kind word',
    'name the step they got right',
    'be gentler with them',
    'encourage them and point to the calculation',
    'say something positive first',
    'a warmer comment please',
  ],
  'want-markdown': ['add a heading and a list', 'bold the answer', 'break the steps into bullets', 'give it some structure'],
};
