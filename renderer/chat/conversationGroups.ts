/** The conversation list as people scan it: filtered by a search, grouped by when each was last used. */
import type { ConversationSummary } from './chatStore.js';

export interface ConversationGroup {
  label: 'Today' | 'Yesterday' | 'Previous 7 days' | 'Previous 30 days' | 'Older';
  items: ConversationSummary[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whether a conversation's title or first message contains every word of `query` (any case). */
export function matches(c: ConversationSummary, title: string, query: string): boolean {
  const text = `${title} ${c.preview ?? ''}`.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => text.includes(w));
}

/** Groups a list (newest first) by the calendar day of its last use, in the local time zone. */
export function groupByDate(list: ConversationSummary[], now: number): ConversationGroup[] {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  const start = midnight.getTime();
  const label = (at: number): ConversationGroup['label'] => {
    if (at >= start) return 'Today';
    if (at >= start - DAY_MS) return 'Yesterday';
    if (at >= start - 7 * DAY_MS) return 'Previous 7 days';
    if (at >= start - 30 * DAY_MS) return 'Previous 30 days';
    return 'Older';
  };
  const groups: ConversationGroup[] = [];
  for (const c of list) {
    const l = label(c.last_seen_at ?? c.created_at ?? now);
    const g = groups.find((x) => x.label === l);
    if (g) g.items.push(c);
    else groups.push({ label: l, items: [c] });
  }
  return groups;
}
