import { partialSuffix } from '../text/partialSuffix.js';
import type { StreamDecoder } from '../text/tokenizer.js';

function firstStop(text: string, stops: readonly string[]): { index: number; stop: string } | null {
  let best: { index: number; stop: string } | null = null;
  for (const s of stops) {
    const i = text.indexOf(s);
    if (i >= 0 && (!best || i < best.index)) best = { index: i, stop: s };
  }
  return best;
}

/**
 * The text of a generation as its tokens arrive: decoded incrementally, with text that may be the
 * start of a stop string held back, and cut before the first stop string that completes.
 */
export class StopStringText {
  /** The text made final so far. */
  text = '';
  private pending = ''; // decoded but held back (possible stop-string prefix)

  constructor(
    private readonly decoder: StreamDecoder,
    /** Strings that end generation (empty ones are ignored). */
    private readonly stops: readonly string[],
  ) {}

  /** Adds a token; returns the text it made final and the stop string it completed, if any. */
  push(id: number): { delta: string; stop: string | null } {
    this.pending += this.decoder.push(id);
    const hit = this.stops.length ? firstStop(this.pending, this.stops) : null;
    let delta: string;
    if (hit) {
      delta = this.pending.slice(0, hit.index);
      this.pending = '';
    } else {
      const keep = this.stops.length ? partialSuffix(this.pending, this.stops) : 0;
      delta = this.pending.slice(0, this.pending.length - keep);
      this.pending = this.pending.slice(this.pending.length - keep);
    }
    this.text += delta;
    return { delta, stop: hit?.stop ?? null };
  }

  /** Generation ended without a stop string: whatever is held back is final. */
  flush(): string {
    const rest = this.pending + this.decoder.flush();
    this.pending = '';
    this.text += rest;
    return rest;
  }
}
