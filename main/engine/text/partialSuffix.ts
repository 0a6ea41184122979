/**
 * Length of the longest suffix of `text` that is a proper prefix of one of `needles`: how much of
 * a streamed text must be held back because the next piece may complete a needle (a stop string,
 * a tag).
 */
export function partialSuffix(text: string, needles: readonly string[]): number {
  let best = 0;
  for (const needle of needles) {
    for (let n = Math.min(needle.length - 1, text.length); n > best; n--) {
      if (text.endsWith(needle.slice(0, n))) {
        best = n;
        break;
      }
    }
  }
  return best;
}
