/**
 * Where a persona's signal goes (issue 38): the funnel of a benchmark run, from what the judges
 * read to what the policy learned. Pure arithmetic over the run's records; the benchmark gathers
 * them (funnelProbe.ts).
 *
 *   judge      the PRM's reward sign against the simulated user's truth, per judged turn
 *   hint       of the turns that violated a wish: how many got a hint, and whether it names the wish
 *   ceiling    how often the policy complies with the hint in its prompt (as OPD's teacher reads it)
 *   after      how often it complies without the hint after training (the run's score), and accuracy
 */
import type { Rule } from './persona.js';

/** One main turn of the conversation: the user's truth and what the server made of it. */
export interface TurnRecord {
  /** Every rule of the persona held. */
  ok: boolean;
  /** The rule the user complained about (the first that failed), or null. */
  violated: string | null;
  /** The PRM's majority score (+1, −1, 0), or null when the PRM did not judge the turn. */
  prm: number | null;
  /** The hint the turn trains with, else the hint judge's (also when hint_min_gap dropped it), else null. */
  hint: string | null;
  /** Whether the turn's own sample trains with that hint. */
  hintTrained: boolean;
}

export interface JudgeFunnel {
  /** Turns the PRM judged. */
  judged: number;
  /** Its sign matched the truth (+1 for a satisfying answer, −1 for one that violated a wish). */
  agree: number;
  /** Its sign was the opposite of the truth. */
  opposite: number;
  /** It scored 0 (unsure). */
  unsure: number;
  /** agree / judged; null when nothing was judged. */
  agreement: number | null;
}

export interface HintFunnel {
  /** Turns that violated a wish. */
  violated: number;
  /** Of those, turns with a hint (typed, or the hint judge's). */
  hinted: number;
  /** Of those, hints that name the violated wish (see {@link hintNamesWish}). */
  names_wish: number;
  /** Of the violated turns, those whose own sample trains with a hint. */
  trained: number;
  /** names_wish / violated; null without a violated turn. */
  names_wish_rate: number | null;
}

export interface CeilingFunnel {
  /** Distinct hints the ceiling was measured with (the run's, up to a limit). */
  hints: number;
  /** Answers sampled per measurement. */
  samples: number;
  /** Share of answers that satisfy every rule, with the hint in the prompt: base model, and the trained policy. */
  base: number | null;
  trained: number | null;
}

export interface Funnel {
  channel: Channel;
  judge: JudgeFunnel;
  hint: HintFunnel;
  ceiling: CeilingFunnel;
  /** Compliance without the hint (the persona's score on held-out prompts), and accuracy, before and after. */
  score_before: number;
  score_after: number;
  accuracy_before: number;
  accuracy_after: number;
}

/**
 * How the simulated user gives feedback: 'implicit' (its reply is the next state the judges read,
 * as OpenClaw sends it) or 'explicit' (👍/👎 and, on 👎, its complaint typed as a hint through
 * POST /v1/feedback, as a person would in the app; the next message carries no wish).
 */
export const CHANNELS = ['implicit', 'explicit'] as const;
export type Channel = (typeof CHANNELS)[number];

const ratio = (n: number, d: number): number | null => (d ? n / d : null);

/** The PRM's reward sign against the truth over the turns it judged. */
export function judgeFunnel(turns: readonly TurnRecord[]): JudgeFunnel {
  const judged = turns.filter((t) => t.prm !== null);
  const agree = judged.filter((t) => t.prm === (t.ok ? 1 : -1)).length;
  const opposite = judged.filter((t) => t.prm === (t.ok ? -1 : 1)).length;
  const unsure = judged.filter((t) => t.prm === 0).length;
  return { judged: judged.length, agree, opposite, unsure, agreement: ratio(agree, judged.length) };
}

/** Of the turns that violated a wish: hinted, hints naming the wish, hints that train. */
export function hintFunnel(turns: readonly TurnRecord[], rules: readonly Rule[]): HintFunnel {
  const violated = turns.filter((t) => !t.ok && t.violated !== null);
  const hinted = violated.filter((t) => t.hint !== null);
  const named = hinted.filter((t) => {
    const rule = rules.find((r) => r.id === t.violated);
    return rule !== undefined && hintNamesWish(t.hint!, rule);
  });
  return {
    violated: violated.length,
    hinted: hinted.length,
    names_wish: named.length,
    trained: violated.filter((t) => t.hint !== null && t.hintTrained).length,
    names_wish_rate: ratio(named.length, violated.length),
  };
}

/** Words every rule of a type is about, whatever the persona called it. */
const TYPE_WORDS: Record<Rule['type'], string[]> = {
  absent: [],
  present: [],
  max_sentences: ['short', 'brief', 'concise', 'sentence', 'length', 'long'],
  max_chars: ['short', 'brief', 'concise', 'length', 'long', 'characters', 'words'],
  min_chars: ['long', 'longer', 'detail', 'thorough', 'explain', 'length', 'more'],
  starts_with: ['start', 'begin', 'open', 'first'],
  ends_with: ['end', 'close', 'finish', 'sign', 'last'],
};

/** Words in a rule id that say nothing about the wish. */
const STOP = new Set(['no', 'not', 'non', 'the', 'and', 'with', 'without', 'must', 'only', 'any', 'all', 'use', 'uses', 'each', 'per']);

const words = (text: string): string[] => text.toLowerCase().match(/\p{L}+/gu) ?? [];

/**
 * Two words name the same thing when they share their first five letters, or, when one is shorter
 * than that, the longer begins with it ("end" and "ending", "emoji" and "emojis").
 */
function sameStem(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length < 5 ? long.startsWith(short) : short.slice(0, 5) === long.slice(0, 5);
}

/** The words a hint naming this rule's wish would use: the rule id's words, its literal value's, and its type's. */
export function wishKeywords(rule: Rule): string[] {
  const own = [...words(rule.id.replace(/[_-]+/g, ' ')), ...(typeof rule.spec.value === 'string' ? words(rule.spec.value) : [])];
  return [...new Set([...own.filter((w) => w.length >= 3 && !STOP.has(w)), ...TYPE_WORDS[rule.type]])];
}

/**
 * Whether a hint names the violated wish: one of its words shares a stem with one of the rule's
 * {@link wishKeywords}. Limits, by design of a check that needs no model: it trusts the persona
 * author's rule id ("no_bold" gives "bold"), so a hint that names the wish in other words ("the
 * thick starred text") counts as missing it; and a type's words are generic, so a hint that
 * names the right kind of wish with the wrong content ("start with a greeting" for a rule that
 * wants the number first) counts as naming it. It is a floor on misreadings, not a proof of a
 * right reading.
 */
export function hintNamesWish(hint: string, rule: Rule): boolean {
  const keys = wishKeywords(rule);
  return words(hint)
    .filter((w) => w.length >= 3 && !STOP.has(w))
    .some((w) => keys.some((k) => sameStem(w, k)));
}

/** The run's funnel from its turn records, the ceiling measured and the before/after measurements. */
export function funnelOf(
  channel: Channel,
  turns: readonly TurnRecord[],
  rules: readonly Rule[],
  ceiling: CeilingFunnel,
  m: { score_before: number; score_after: number; accuracy_before: number; accuracy_after: number },
): Funnel {
  return { channel, judge: judgeFunnel(turns), hint: hintFunnel(turns, rules), ceiling, ...m };
}
