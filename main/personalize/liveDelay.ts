/**
 * How long a trained checkpoint takes to serve (issue 38, must-be-true 6a): from the checkpoint's
 * save ("trained", its `created_at`) to the `adapter.live` event that announces it serving
 * ("live"). The competence gate sits between the two; a checkpoint it holds back never goes live.
 */

export interface LiveDelay {
  /** Checkpoints saved during the run. */
  trained: number;
  /** Of those, the ones that went live as trained. */
  live: number;
  /** Median and largest seconds from trained to live over those; null when none went live. */
  median_s: number | null;
  max_s: number | null;
}

/** The median of `xs` (the mean of the middle two for an even count); null for none. */
export function median(xs: readonly number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Trained-to-live delays from the checkpoints (id, created_at in ms) and the stored events
 * (name, data as JSON text, at in ms): each checkpoint's first `adapter.live` with reason
 * 'trained'. Both clocks are the server's.
 */
export function liveDelay(
  checkpoints: ReadonlyArray<{ id: string; created_at: number }>,
  events: ReadonlyArray<{ name: string; data: string; at: number }>,
): LiveDelay {
  const liveAt = new Map<string, number>();
  for (const e of events) {
    if (e.name !== 'adapter.live') continue;
    const d = JSON.parse(e.data) as { checkpoint_id: string | null; reason: string };
    if (d.reason === 'trained' && d.checkpoint_id && !liveAt.has(d.checkpoint_id)) liveAt.set(d.checkpoint_id, e.at);
  }
  const delays = checkpoints.filter((c) => liveAt.has(c.id)).map((c) => (liveAt.get(c.id)! - c.created_at) / 1000);
  return { trained: checkpoints.length, live: delays.length, median_s: median(delays), max_s: delays.length ? Math.max(...delays) : null };
}
