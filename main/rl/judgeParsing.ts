/** Reading judge outputs: `\boxed{}` scores, hints, majority votes and hint selection (docs/learning-loop.md §2). */

/** The last `\boxed{1}`, `\boxed{+1}`, `\boxed{-1}` or `\boxed{0}` in the text; null when there is none. */
export function parseBoxedScore(text: string): -1 | 0 | 1 | null {
  const re = /\\boxed\{\s*([+-]?\s*[01])\s*\}/g;
  let last: string | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) last = m[1].replace(/\s+/g, '');
  if (last === null) return null;
  const v = Number(last);
  return v === 1 ? 1 : v === -1 ? -1 : 0;
}

/** The text between the last [HINT_START] and the [HINT_END] after it, trimmed; null when absent. */
export function parseHint(text: string): string | null {
  const start = text.lastIndexOf('[HINT_START]');
  if (start < 0) return null;
  const end = text.indexOf('[HINT_END]', start);
  if (end < 0) return null;
  const hint = text.slice(start + '[HINT_START]'.length, end).trim();
  return hint || null;
}

/** The majority of valid votes; a tie between the top scores, or no valid vote, gives 0. */
export function majorityScore(votes: ReadonlyArray<number | null>): -1 | 0 | 1 {
  const counts = new Map<number, number>();
  for (const v of votes) if (v === 1 || v === -1 || v === 0) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: number | null = null;
  let bestCount = 0;
  let tie = false;
  for (const [v, c] of counts) {
    if (c > bestCount) {
      best = v;
      bestCount = c;
      tie = false;
    } else if (c === bestCount) tie = true;
  }
  return best === null || tie ? 0 : (best as -1 | 0 | 1);
}

/** Hints shorter than this (characters) are not accepted (reference: > 10). */
export const MIN_HINT_CHARS = 11;

export interface HintVote {
  score: -1 | 0 | 1 | null;
  hint: string | null;
}

/** Candidate hints: those of \boxed{1} votes that are long enough, in vote order. */
export function hintCandidates(votes: readonly HintVote[]): string[] {
  return votes.filter((v) => v.score === 1 && v.hint !== null && v.hint.length >= MIN_HINT_CHARS).map((v) => v.hint!);
}

/** Default selection: the longest candidate (the first of equally long ones); null when none. */
export function selectLongestHint(votes: readonly HintVote[]): string | null {
  let best: string | null = null;
  for (const h of hintCandidates(votes)) if (best === null || h.length > best.length) best = h;
  return best;
}

/**
 * Overlap of two top-k lists per position: how many of the teacher's top tokens are also among
 * the student's, summed over positions (paper v2's overlap-guided hint selection uses k = 4).
 */
export function topKOverlap(teacher: ReadonlyArray<ReadonlyArray<number>>, student: ReadonlyArray<ReadonlyArray<number>>): number {
  let n = 0;
  for (let t = 0; t < Math.min(teacher.length, student.length); t++) {
    const s = new Set(student[t]);
    for (const id of teacher[t]) if (s.has(id)) n++;
  }
  return n;
}
