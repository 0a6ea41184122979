/**
 * What users say after an answer (the next state the judges read) and the hints a hint judge
 * should extract from it. Phrases are composed from parts, so the model learns the meaning of a
 * complaint rather than a list of sentences; `heldOut*` pools are never used in training and
 * measure how the judges handle phrasings they have not seen. The phrases themselves are in
 * phrasesSet1.ts (the first model's), phrasesSet2.ts (mixed in later) and phrasesSet3.ts (the
 * judge's phase); this file composes them.
 */
import type { Rng } from '../../main/util/random.js';
import { reword } from './replyNoise.js';
import type { Style } from './styles.js';
import { COMPLAINT_OPENERS, CORE, CORE_TAILS, END_MARKS, SATISFIED, UNCLEAR, type StyleWish } from './phrasesSet1.js';
import { CORE_V2, REASONS, SATISFIED_BODIES, SATISFIED_CLOSES, SATISFIED_LEADS } from './phrasesSet2.js';
import { QUALITY_CLOSES, QUALITY_FAULTS, QUALITY_PRAISE, QUALITY_REQUESTS, SUFFICED } from './phrasesSet3.js';

export { HELD_OUT_COMPLAINTS, HELD_OUT_SATISFIED, HELD_OUT_UNCLEAR } from './phrasesSet1.js';

/** Why the user reacts: a wish for another style, a wrong answer, or satisfaction / nothing clear. */
export type Reaction = StyleWish | 'wrong-answer' | 'satisfied' | 'unclear';

export const WANTS: Record<Exclude<Reaction, 'wrong-answer' | 'satisfied' | 'unclear'>, Style> = {
  'want-plain': 'plain',
  'want-terse': 'terse',
  'want-warm': 'warm',
  'want-markdown': 'markdown',
};

export function wantFor(style: Style): Reaction {
  return (Object.entries(WANTS).find(([, s]) => s === style)![0] as Reaction) ?? 'unclear';
}

function qualityComplaint(r: Rng, kind: keyof typeof CORE): string {
  const roll = r.uniform();
  const parts =
    roll < 0.35
      ? [r.pick(QUALITY_FAULTS[kind])]
      : roll < 0.65
        ? [r.pick(QUALITY_REQUESTS[kind])]
        : [r.pick(QUALITY_FAULTS[kind]), r.pick(QUALITY_REQUESTS[kind])];
  let out = `${r.chance(0.3) ? r.pick(COMPLAINT_OPENERS) : ''}${parts.join(r.pick(['. ', ', ', ' - ', '; ']))}`.trim();
  out = out[0].toUpperCase() + out.slice(1);
  if (!/[.!?]$/.test(out)) out += r.pick(['.', '!', '', '.']);
  if (r.chance(0.25)) out = `${out} ${r.pick(REASONS[kind])}`;
  return out.replace(/\s+/g, ' ').trim();
}

function qualityPraise(r: Rng, style: Style): string {
  const body = r.chance(0.7) ? r.pick(QUALITY_PRAISE[style]) : r.pick(SUFFICED);
  const parts = [body];
  if (r.chance(0.5)) parts.unshift(r.pick(SATISFIED_LEADS));
  if (r.chance(0.5)) parts.push(r.pick(QUALITY_CLOSES));
  const out = parts.map((p, i) => (i === 0 || r.chance(0.4) ? p[0].toUpperCase() + p.slice(1) : p)).join(r.pick([', ', '. ', '! ', ' - ']));
  return /[.!?]$/.test(out) ? out : out + r.pick(['.', '!', '', '.']);
}

function satisfiedV2(r: Rng): string {
  const parts: string[] = [];
  if (r.chance(0.8)) parts.push(r.pick(SATISFIED_LEADS));
  if (r.chance(0.7)) parts.push(r.pick(SATISFIED_BODIES));
  // Two parts at least: one-word praise is set 1's, and the shipped personas' "Thanks." stays unseen.
  if (parts.length < 2 || r.chance(0.5)) parts.push(r.pick(SATISFIED_CLOSES));
  if (parts.length < 2) parts.unshift(r.pick(SATISFIED_LEADS));
  const out = parts.map((p, i) => (i === 0 || r.chance(0.5) ? p[0].toUpperCase() + p.slice(1) : p)).join(r.pick([', ', '. ', '! ', ' - ']));
  return /[.!?]$/.test(out) ? out : out + r.pick(['.', '!', '']);
}

function complaintV2(r: Rng, kind: keyof typeof CORE): string {
  const core = r.chance(0.5) ? r.pick(CORE_V2[kind]) : r.pick(CORE[kind]);
  let out = `${r.pick(COMPLAINT_OPENERS)}${core}${r.pick(CORE_TAILS[kind] ?? [''])}`;
  out = out[0].toUpperCase() + out.slice(1);
  if (!/[.!?]$/.test(out)) out += r.pick(['.', '!', '']);
  if (r.chance(0.4)) out = r.chance(0.5) ? `${out} ${r.pick(REASONS[kind])}` : `${r.pick(REASONS[kind])} ${out}`;
  return out.replace(/\s+/g, ' ').trim();
}

function finish(r: Rng, s: string): string {
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
  r: Rng,
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
export function styleHint(r: Rng, style: Style): string {
  return r.pick(HINTS[wantFor(style) as keyof typeof HINTS]);
}

/** A hint for a wrong answer. */
export function correctionHint(r: Rng, w: { expr: string; result: number }, answer: number): string {
  return r.pick([
    `Check the arithmetic again: ${w.expr} = ${w.result}, so the answer is ${answer}.`,
    `Recompute each step carefully; ${w.expr} is ${w.result} and the final answer is ${answer}.`,
    `The step ${w.expr} gives ${w.result}. Fix it and give ${answer} as the answer.`,
  ]);
}

/** The PRM's brief reasoning before its score. */
export function prmReason(r: Rng, kind: Reaction): string {
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
