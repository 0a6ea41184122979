/**
 * Compare's conversations: each side of a comparison is a one-turn session `compare-<id>-a|b`,
 * named "Compare v4 vs v0 · A · <prompt>". They belong to Checkpoints, not to Chat's list.
 */
import type { SessionInfo } from '../api/contract.js';

export const COMPARE_PREFIX = 'compare-';

export function isCompareSession(id: string): boolean {
  return id.startsWith(COMPARE_PREFIX);
}

/** The readable name of one side's session (Data lists it by this name). */
export function compareTitle(versionA: number | null, versionB: number | null, side: 'a' | 'b', prompt: string): string {
  const v = (n: number | null) => (n === null ? 'v?' : `v${n}`);
  const line = prompt.replace(/\s+/g, ' ').trim();
  return `Compare ${v(versionA)} vs ${v(versionB)} · ${side.toUpperCase()} · ${line.length > 60 ? `${line.slice(0, 57)}…` : line}`;
}

/** The comparison a side's title names, without the side: "Compare v4 vs v0 · <prompt>". */
export function comparisonLabel(title: string): string {
  return title.replace(/ · [AB] · /, ' · ');
}

/** One comparison made so far. */
export interface Comparison {
  /** The sessions' common id, without the side. */
  id: string;
  label: string;
  at: number;
}

/** One entry per comparison, newest first (its A side names it; one still unnamed shows its prompt). */
export function comparisonsFrom(sessions: SessionInfo[]): Comparison[] {
  return sessions
    .filter((s) => isCompareSession(s.id) && s.id.endsWith('-a'))
    .map((s) => ({
      id: s.id.slice(0, -2),
      label: s.title ? comparisonLabel(s.title) : `Compare · ${s.preview ?? 'no prompt'}`,
      at: s.created_at,
    }))
    .sort((x, y) => y.at - x.at);
}
