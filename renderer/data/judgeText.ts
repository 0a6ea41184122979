/** A judge's verdict on a turn, and each of its votes, in words (Data's turn detail). */
import type { TurnView } from '../api/contract.js';
import { quote, signed } from '../ui/format.js';

type Judgement = TurnView['judgements'][number];
type Vote = Judgement['votes'][number];

/**
 * A vote in words. The reward judge scores the answer (+1 good, −1 bad); the hint judge does not
 * score it: its \boxed{1} means "I found a hint in what came next", −1 "no hint" (docs/learning-loop.md §2).
 */
export function voteText(kind: Judgement['kind'], v: Vote): string {
  if (kind === 'hint')
    return v.score === 1 ? `found a hint${v.hint ? ` ${quote(v.hint)}` : ''}` : v.score === null ? 'unreadable' : 'no hint';
  return v.score === null ? 'unreadable' : `score ${signed(v.score, 0)}`;
}

/** The judge's verdict on the turn, one line: the reward judge's score, or the hint it settled on. */
export function verdictText(j: Judgement): string {
  const n = j.votes.length;
  const votes = `${n} vote${n === 1 ? '' : 's'}`;
  if (j.kind === 'hint') {
    const found = j.votes.filter((v) => v.score === 1).length;
    if (j.hint) return `hint found ${quote(j.hint)} (by ${found} of ${votes})`;
    return found ? `no usable hint (${found} of ${votes} found one, none long enough to train with)` : `no hint (in ${votes})`;
  }
  return `score ${signed(j.score, 0)} (${votes})`;
}
