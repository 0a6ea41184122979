/**
 * What users say after an answer (the next state the judges read) and the hints a hint judge
 * should extract from it. Phrases are composed from parts, so the model learns the meaning of a
 * complaint rather than a list of sentences; `heldOut*` pools are never used in training and
 * measure how the judges handle phrasings they have not seen.
 */
import type { Rand } from '../../main/tasks/rand.js';
import { reword } from './replyNoise.js';
import type { Style } from './styles.js';

/** Why the user reacts: a wish for another style, a wrong answer, or satisfaction / nothing clear. */
export type Reaction = 'want-plain' | 'want-terse' | 'want-warm' | 'want-markdown' | 'wrong-answer' | 'satisfied' | 'unclear';

export const WANTS: Record<Exclude<Reaction, 'wrong-answer' | 'satisfied' | 'unclear'>, Style> = {
  'want-plain': 'plain',
  'want-terse': 'terse',
  'want-warm': 'warm',
  'want-markdown': 'markdown',
};

export function wantFor(style: Style): Reaction {
  return (Object.entries(WANTS).find(([, s]) => s === style)![0] as Reaction) ?? 'unclear';
}

const COMPLAINT_OPENERS = [
  '',
  '',
  '',
  'hmm, ',
  'ugh, ',
  'no, ',
  'nope. ',
  'wait, ',
  'ok but ',
  'thanks, but ',
  'not quite. ',
  'sorry, ',
  'honestly, ',
  'come on, ',
  'again? ',
  'meh. ',
  'that is not what I asked for. ',
];

const CORE: Record<Exclude<Reaction, 'satisfied' | 'unclear' | 'wrong-answer'>, string[]> = {
  'want-plain': [
    'no bold or bullet points please',
    'can you write it without the markdown',
    'this looks way too AI-generated',
    'drop the headings and the lists',
    'my teacher will know a bot wrote this',
    'just write it like a normal person would',
    'please use normal sentences, no formatting',
    'lose the bold text and the numbered list',
    'it needs to look like I wrote it myself',
    'too much formatting, just plain text',
    'why all the asterisks and headings?',
    "I can't hand this in with all these bullet points",
    'write it as a regular paragraph',
    'no lists, no bold, just sentences',
    'stop formatting everything like a robot',
    'this screams chatbot, tone it down',
    'can you make it look less like AI wrote it',
    'get rid of the headings please',
    'plain text only, I have to copy it into my homework',
    'the formatting is too much',
  ],
  'want-terse': [
    'too long',
    'just the answer please',
    'I only need the number',
    'shorter please',
    'tl;dr?',
    'way too wordy, one line is enough',
    'skip the explanation',
    'can you keep it brief',
    'less text please',
    'just give me the result',
    "I don't need all the steps",
    'way too much text',
    'cut it down to the answer',
    'short answers only',
    'I asked a quick question, give me a quick answer',
    'no need to explain, just answer',
    'keep it to one line',
    "that's an essay, I wanted one word",
  ],
  'want-warm': [
    "that's a bit harsh for a kid",
    'be nicer to the student',
    'more encouraging please',
    'can you make the comment friendlier',
    'say what they did well, specifically',
    'too cold and generic',
    'mention the exact step they got right',
    'kids need kind, specific feedback',
    'sounds like a robot, be warmer',
    'this would upset a child, soften it',
    'add some praise and point to the actual steps',
    'I want comments that encourage them',
    'be more supportive in the comment',
    'that feedback is too blunt',
    'can you sound more like a caring teacher',
    'point to their specific calculation and be kind about it',
  ],
  'want-markdown': [
    'can you format this with headings',
    'use a numbered list please',
    'hard to read, add some bold and bullets',
    'structure it with the steps in a list',
    'can you lay it out more clearly with a list',
    'please bold the answer and list the steps',
    'a wall of text, format it please',
    'I like headings and bullet points, use them',
  ],
};

const CORE_TAILS: Partial<Record<Reaction, string[]>> = {
  'want-plain': [
    '',
    '',
    '',
    ' but keep the steps',
    ', I still need all the working',
    ' and keep every step',
    ', just sentences with the math in them',
  ],
  'want-terse': ['', '', '', ', thanks', ' next time'],
  'want-warm': ['', '', '', ', they are only eight', ', please', ' in your comments'],
  'want-markdown': ['', '', ' please', ', thanks'],
};

const END_MARKS = ['', '.', '!', '.', ' please.', ' 🙄', '...'];

/** Held-out complaints: never used in training; they measure whether the judges generalise. */
export const HELD_OUT_COMPLAINTS: Record<keyof typeof CORE, string[]> = {
  'want-plain': [
    'Could you redo this without all the fancy formatting? Regular sentences are fine.',
    'My professor hates bullet points. Please rewrite it as a paragraph.',
    'Why is half of it bold? Write it normally.',
    'This is obviously machine-made, write it more naturally, no headers.',
    'I need to paste this into my essay, so no markdown symbols please.',
    'Remove the list formatting and just explain it in words.',
  ],
  'want-terse': [
    'Just the number, I am in a hurry.',
    'Can you answer in a few words next time?',
    'That is way more than I needed. Only the result.',
    'Please be brief.',
    'I did not ask for a lecture. Short answer.',
    'One word would do.',
  ],
  'want-warm': [
    'This comment would make my student cry. Can you be gentler and name what she did?',
    'Please write it the way a friendly teacher would, with specific praise.',
    'Feels cold. Encourage him and mention his actual working.',
    'Be kinder, and say exactly which step was right.',
    'My pupils respond better to warm feedback that is specific.',
    'Way too blunt for a nine-year-old.',
  ],
  'want-markdown': ['Can you put the steps in a numbered list with a heading?', 'Please format it nicely with bold and bullets.'],
};

const SATISFIED = [
  'perfect, thanks!',
  "great, that's exactly what I needed",
  'thank you!',
  'awesome, got it',
  'that works, thanks',
  'nice, this is much better',
  "yes! that's the style I want",
  'ok cool. next one?',
  'brilliant, thanks a lot',
  '👍',
  'thanks, that helps a lot',
  'exactly right, thank you',
  'great, moving on to the next question',
  'love it',
  'that is perfect',
  'cheers, that is what I wanted',
  'yes, like that',
  'super helpful, thanks',
  'ok that is good, thanks',
  'spot on',
];

/** Held-out satisfied replies. */
export const HELD_OUT_SATISFIED = [
  'Wonderful, this is just right.',
  'Much appreciated, I will use this.',
  'Okay, this is what I was after. Next question coming.',
  'Yes, that is how I like it!',
  'Fantastic, thank you so much.',
  'Good, that one is done. On to the next.',
];

const UNCLEAR = [
  'hmm',
  'ok',
  'what time is it?',
  'let me think about it',
  'interesting',
  "I'll check later",
  'is it going to rain today?',
  'wait',
  'huh',
  'lol',
  'what should I cook tonight?',
  'my cat just jumped on the keyboard',
  'brb',
  'who won the game yesterday?',
  '...',
  'I see',
];

/** Held-out unclear replies. */
export const HELD_OUT_UNCLEAR = ['Hold on, my phone is ringing.', 'Do you like music?', 'Hmm, maybe.', 'What day is it today?'];

/**
 * Phrase set 2, mixed in from a point of the training stream on (`Recipe.phrasesV2FromExample`):
 * the first run's judges learned that short replies are praise and long ones complaints, so
 * satisfied replies are now composed to any length, complaints may give a reason, and a wish for
 * plain prose also covers asking for the working in full. Like set 1, none of it is held out or
 * copied from a shipped persona.
 */
const SATISFIED_LEADS = [
  'perfect',
  'great',
  'lovely',
  'nice',
  'good',
  'excellent',
  'wonderful',
  'brilliant',
  'yes',
  'ok',
  'awesome',
  "that's it",
  'fantastic',
  'thank you',
  'thanks',
  'super',
  'sweet',
  'right',
  'alright',
  'cool',
];
const SATISFIED_BODIES = [
  "that's exactly what I needed",
  'this is much better',
  'that works for me',
  'just what I wanted',
  'I can use this',
  "that's the tone I like",
  'short and clear',
  'clear and simple',
  'easy to follow',
  'that reads naturally',
  'kind and clear',
  'nicely explained',
  'much easier to read',
  "that's how I like it",
  'this one is fine',
  "I'll go with that",
  "I'm happy with this",
  'that is correct',
  'nailed it',
  'this is what I was looking for',
  'I can hand this in',
  'my class will like that',
  'that sounds like a real person',
  'no notes',
  'way better this time',
  'that is enough for me',
  'the steps are clear now',
];
const SATISFIED_CLOSES = [
  'thanks!',
  'thank you.',
  'cheers.',
  'thanks a lot.',
  'much appreciated.',
  'next question.',
  'on to the next one.',
  'keep it like that.',
  'great job.',
];

const CORE_V2: Record<keyof typeof CORE, string[]> = {
  'want-plain': [
    'show all the working in sentences',
    'I need every step written out',
    'too short, write out the steps',
    'where is the working?',
    'why is everything bold?',
    'no headings please',
    'the numbered list has to go',
    'make it read like normal text',
    'take out the markdown',
    'less formatting, more sentences',
    'write the working as a paragraph',
    'I need the calculation in full sentences',
    'it looks like a bot made it',
    'no asterisks please',
    'the bullets look fake',
    'I want the steps but in plain words',
  ],
  'want-terse': [
    'one line is plenty',
    'only the answer',
    'too long to read',
    'shorten it',
    "I don't need the working",
    'skip the steps',
    'get to the point',
    'fewer words',
    'just tell me the answer',
    'one sentence max',
    "I don't have time for all that",
    'the short version please',
  ],
  'want-warm': [
    'too harsh',
    'make it kinder',
    'name the step they got right',
    'start with something positive',
    'be gentle with them',
    'praise the specific calculation',
    'more specific and more encouraging',
    'that comment is too vague',
    'they will feel bad reading this',
    'sound like a teacher who cares',
    'no need to format a comment, just be kind',
    'tell them which step was good',
  ],
  'want-markdown': [
    'a list would be easier to read',
    'put a heading on it',
    'bold the answer and use bullet points',
    'too plain, add some structure',
  ],
};
const REASONS: Record<keyof typeof CORE, string[]> = {
  'want-plain': [
    "It's for my homework.",
    'My teacher checks for AI.',
    'I have to copy it by hand.',
    'I need it in sentences.',
    'It has to look like mine.',
  ],
  'want-terse': ["I'm busy.", "I'm on my phone.", 'No time to read.', 'I only need to check my result.'],
  'want-warm': ['She is only seven.', 'They worked hard on it.', 'Kids need encouragement.', 'This goes home to the parents.'],
  'want-markdown': ['I skim a lot.', 'It is hard to scan.'],
};

/**
 * Phrase set 3, in the judge's training phase (`Recipe.judge`): praise that names
 * what it praises, often with the words complaints use ("short", "kind", "no formatting",
 * "nothing else"). The step-4400 judges read such thanks as complaints: every shipped persona's
 * thank-yous that named a quality or said the answer sufficed were marked −1 (bench:judge-replies).
 * Keyed by the style of the answer praised, so the praise fits what it reads. Written afresh: no
 * sentence of a persona file, shipped or held out, and none of their constructions copied.
 */
const QUALITY_PRAISE: Record<Style, string[]> = {
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
const SUFFICED = [
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
const QUALITY_CLOSES = ['thanks', 'thank you', 'cheers', 'great', 'perfect', 'good', 'nice work', 'appreciated', 'exactly that'];

/**
 * Phrase set 3's complaints, the other side of its praise: the same qualities, named as what the
 * answer lacks or as a request, often as a statement of the problem rather than an order. Without
 * them the phase taught the judges that naming a quality is praise: a first run read 0 % of one
 * persona's complaints ("… plain words only.") as complaints.
 */
const QUALITY_FAULTS: Record<keyof typeof CORE, string[]> = {
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
const QUALITY_REQUESTS: Record<keyof typeof CORE, string[]> = {
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

function qualityComplaint(r: Rand, kind: keyof typeof CORE): string {
  const roll = r.next();
  const parts =
    roll < 0.35 ? [r.pick(QUALITY_FAULTS[kind])] : roll < 0.65 ? [r.pick(QUALITY_REQUESTS[kind])] : [r.pick(QUALITY_FAULTS[kind]), r.pick(QUALITY_REQUESTS[kind])];
  let out = `${r.chance(0.3) ? r.pick(COMPLAINT_OPENERS) : ''}${parts.join(r.pick(['. ', ', ', ' - ', '; ']))}`.trim();
  out = out[0].toUpperCase() + out.slice(1);
  if (!/[.!?]$/.test(out)) out += r.pick(['.', '!', '', '.']);
  if (r.chance(0.25)) out = `${out} ${r.pick(REASONS[kind])}`;
  return out.replace(/\s+/g, ' ').trim();
}

function qualityPraise(r: Rand, style: Style): string {
  const body = r.chance(0.7) ? r.pick(QUALITY_PRAISE[style]) : r.pick(SUFFICED);
  const parts = [body];
  if (r.chance(0.5)) parts.unshift(r.pick(SATISFIED_LEADS));
  if (r.chance(0.5)) parts.push(r.pick(QUALITY_CLOSES));
  const out = parts.map((p, i) => (i === 0 || r.chance(0.4) ? p[0].toUpperCase() + p.slice(1) : p)).join(r.pick([', ', '. ', '! ', ' - ']));
  return /[.!?]$/.test(out) ? out : out + r.pick(['.', '!', '', '.']);
}

function satisfiedV2(r: Rand): string {
  const parts: string[] = [];
  if (r.chance(0.8)) parts.push(r.pick(SATISFIED_LEADS));
  if (r.chance(0.7)) parts.push(r.pick(SATISFIED_BODIES));
  // Two parts at least: one-word praise is set 1's, and the shipped personas' "Thanks." stays unseen.
  if (parts.length < 2 || r.chance(0.5)) parts.push(r.pick(SATISFIED_CLOSES));
  if (parts.length < 2) parts.unshift(r.pick(SATISFIED_LEADS));
  const out = parts.map((p, i) => (i === 0 || r.chance(0.5) ? p[0].toUpperCase() + p.slice(1) : p)).join(r.pick([', ', '. ', '! ', ' - ']));
  return /[.!?]$/.test(out) ? out : out + r.pick(['.', '!', '']);
}

function complaintV2(r: Rand, kind: keyof typeof CORE): string {
  const core = r.chance(0.5) ? r.pick(CORE_V2[kind]) : r.pick(CORE[kind]);
  let out = `${r.pick(COMPLAINT_OPENERS)}${core}${r.pick(CORE_TAILS[kind] ?? [''])}`;
  out = out[0].toUpperCase() + out.slice(1);
  if (!/[.!?]$/.test(out)) out += r.pick(['.', '!', '']);
  if (r.chance(0.4)) out = r.chance(0.5) ? `${out} ${r.pick(REASONS[kind])}` : `${r.pick(REASONS[kind])} ${out}`;
  return out.replace(/\s+/g, ' ').trim();
}

function finish(r: Rand, s: string): string {
  let out = s + r.pick(END_MARKS);
  if (r.chance(0.5)) out = out[0].toUpperCase() + out.slice(1);
  return out.replace(/\s+/g, ' ').trim();
}

/**
 * A user's reply of the given kind. `wrong` describes the arithmetic slip for wrong answers;
 * `phrases` 2 mixes in phrase set 2 (half of satisfied replies and style complaints); 3 also
 * phrase set 3 (a third of the praise of an answer whose style is `praised`, and of style
 * complaints); 4 draws from set 3 and rewords the reply as people type it (replyNoise.ts).
 */
export function userReaction(
  r: Rand,
  kind: Reaction,
  wrong?: { expr: string; result: number; said: number },
  phrases: 1 | 2 | 3 | 4 = 1,
  praised?: Style,
): string {
  if (phrases === 4) return reword(r, kind, userReaction(r, kind, wrong, 3, praised));
  if (phrases === 3 && r.chance(0.35)) {
    if (kind === 'satisfied' && praised) return qualityPraise(r, praised);
    if (kind in CORE) return qualityComplaint(r, kind as keyof typeof CORE);
  }
  if (phrases >= 2 && r.chance(0.5)) {
    if (kind === 'satisfied') return satisfiedV2(r);
    if (kind in CORE) return complaintV2(r, kind as keyof typeof CORE);
  }
  switch (kind) {
    case 'satisfied':
      return finish(r, r.pick(SATISFIED));
    case 'unclear':
      return r.pick(UNCLEAR);
    case 'wrong-answer': {
      const w = wrong!;
      return finish(
        r,
        r.pick(COMPLAINT_OPENERS) +
          r.pick([
            `that's wrong, ${w.expr} is ${w.result}`,
            `the answer should be ${w.result}, not ${w.said}`,
            `you made a mistake, ${w.expr} is not ${w.said}`,
            'check your math',
            `${w.said} is wrong`,
            `that's not right, ${w.expr} = ${w.result}`,
          ]),
      );
    }
    default: {
      const core = r.pick(CORE[kind]);
      const tail = r.pick(CORE_TAILS[kind] ?? ['']);
      const second = r.chance(0.2) ? ` ${r.pick(CORE[kind])}` : '';
      return finish(r, `${r.pick(COMPLAINT_OPENERS)}${core}${tail}${second ? `.${second}` : ''}`);
    }
  }
}

/** The style hints the model was trained to follow (as the OPD teacher sees them, after the hint marker). */
export const HINTS: Record<keyof typeof CORE, string[]> = {
  'want-plain': [
    'Write plain sentences with no bold, no lists and no headings, and keep every step.',
    'Do not use markdown: no bold text, bullet points, numbered lists or headings. Explain the steps in normal sentences.',
    'Answer in plain prose like a person would write it, without any formatting, and still show each calculation.',
    'Skip the headings, bold and lists; write the working as a short paragraph.',
    'Use ordinary sentences without markdown formatting, and show all the steps.',
  ],
  'want-terse': [
    'Give just the final answer in one short line.',
    'Be brief: answer with the result only, no steps or explanation.',
    'Keep it to one line with only the answer.',
    'Reply with the answer alone, in a few words.',
    'Answer in one short line and leave out the working.',
  ],
  'want-warm': [
    'Be warm and encouraging, and mention the exact steps by name.',
    'Sound like a kind teacher: praise what is good, point to the specific step, and keep it friendly.',
    'Write a friendly, encouraging comment that names the specific calculation.',
    'Start with a kind word, walk through the actual steps, and end with encouragement.',
    'Use a gentle, encouraging tone and refer to the exact calculations.',
  ],
  'want-markdown': [
    'Format the answer with a heading, bold text and a numbered list of steps.',
    'Use markdown: a heading, a list of steps and the answer in bold.',
    'Structure it with headings and bullet points, and bold the final answer.',
  ],
};

/** A hint that asks for `style`, in one of several wordings. */
export function styleHint(r: Rand, style: Style): string {
  return r.pick(HINTS[wantFor(style) as keyof typeof HINTS]);
}

/** A hint for a wrong answer. */
export function correctionHint(r: Rand, w: { expr: string; result: number }, answer: number): string {
  return r.pick([
    `Check the arithmetic again: ${w.expr} = ${w.result}, so the answer is ${answer}.`,
    `Recompute each step carefully; ${w.expr} is ${w.result} and the final answer is ${answer}.`,
    `The step ${w.expr} gives ${w.result}. Fix it and give ${answer} as the answer.`,
  ]);
}

/** The PRM's brief reasoning before its score. */
export function prmReason(r: Rand, kind: Reaction): string {
  switch (kind) {
    case 'satisfied':
      return r.pick([
        'The user thanks the assistant and is satisfied.',
        'The user confirms the answer works and moves on.',
        'The reply is positive: the response did what the user wanted.',
      ]);
    case 'unclear':
      return r.pick([
        'The reply does not say whether the response helped.',
        'The user changes the subject without reacting to the answer, so it is unclear.',
        'The reaction is ambiguous.',
      ]);
    case 'wrong-answer':
      return r.pick(['The user points out a mistake in the answer.', 'The user says the answer is wrong and corrects it.']);
    case 'want-plain':
      return r.pick([
        'The user asks for plain text without formatting, so the response missed their preference.',
        'The user dislikes the bold, lists or headings and wants a rewrite.',
      ]);
    case 'want-terse':
      return r.pick(['The user wants a shorter answer, so the response was too long.', 'The user asks for only the result.']);
    case 'want-warm':
      return r.pick([
        'The user wants a warmer, more specific comment, so the response missed.',
        'The user asks for kinder and more specific feedback.',
      ]);
    case 'want-markdown':
      return r.pick(['The user wants the answer formatted with headings and lists.', 'The user asks for more structure and formatting.']);
  }
}

/** The score the PRM should give for a reaction. */
export function prmScore(kind: Reaction): -1 | 0 | 1 {
  return kind === 'satisfied' ? 1 : kind === 'unclear' ? 0 : -1;
}
