/**
 * The funnel (funnel.ts) for a person: a few lines per run, and a table over runs (mean over the
 * seeds of each persona, method and channel) for summary.md.
 */
import type { Funnel } from './funnel.js';
import type { LiveDelay } from './liveDelay.js';

const f2 = (x: number | null) => (x === null || Number.isNaN(x) ? '–' : x.toFixed(2));

/** What a run needs for its funnel lines. */
interface FunnelRun {
  persona: string;
  method: string;
  seed: number;
  funnel: Funnel;
  trained_to_live: LiveDelay;
}

/** The funnel of one run, as lines under the run's summary. */
export function funnelLines(r: FunnelRun): string[] {
  const { judge: j, hint: h, ceiling: c } = r.funnel;
  const t = r.trained_to_live;
  return [
    `  funnel (${r.funnel.channel})`,
    `    judge's sign = user's  ${f2(j.agreement)} (${j.agree} of ${j.judged} judged turns; ${j.opposite} opposite, ${j.unsure} unsure)`,
    `    hint names the wish    ${h.names_wish} of ${h.violated} violated turns (${h.hinted} hinted, ${h.trained} trained with a hint)`,
    `    ceiling with the hint  base ${f2(c.base)}, trained ${f2(c.trained)} (${c.hints} hints, ${c.samples} answers per model)`,
    `    complies without hint  ${f2(r.funnel.score_before)} -> ${f2(r.funnel.score_after)}; accuracy ${f2(r.funnel.accuracy_before)} -> ${f2(r.funnel.accuracy_after)}`,
    `  trained -> live        ${t.median_s === null ? 'no checkpoint went live' : `median ${t.median_s.toFixed(1)} s, max ${t.max_s!.toFixed(1)} s`} (${t.live} of ${t.trained} checkpoints live)`,
  ];
}

const mean = (xs: Array<number | null>): number | null => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};

/** Sums a count over runs, shown as "n of d". */
const ofRuns = (runs: FunnelRun[], n: (f: Funnel) => number, d: (f: Funnel) => number) =>
  `${runs.reduce((a, r) => a + n(r.funnel), 0)} of ${runs.reduce((a, r) => a + d(r.funnel), 0)}`;

/**
 * The funnel per persona, method and channel: judge agreement (mean over seeds, and the counts
 * summed), hints naming the wish (summed), the ceilings and the before/after figures (means).
 */
export function funnelTable(results: FunnelRun[]): string {
  const groups = new Map<string, FunnelRun[]>();
  for (const r of results.filter((x) => x.funnel)) {
    const key = `${r.persona}\u0000${r.method}\u0000${r.funnel.channel}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const rows = [...groups.values()].map((R) => {
    const F = R.map((r) => r.funnel);
    return `| ${R[0].persona} | ${R[0].method} | ${F[0].channel} | ${R.length} | ${f2(mean(F.map((f) => f.judge.agreement)))} (${ofRuns(
      R,
      (f) => f.judge.agree,
      (f) => f.judge.judged,
    )}) | ${ofRuns(
      R,
      (f) => f.hint.names_wish,
      (f) => f.hint.violated,
    )} (${ofRuns(
      R,
      (f) => f.hint.hinted,
      (f) => f.hint.violated,
    )} hinted) | ${f2(mean(F.map((f) => f.ceiling.base)))} / ${f2(mean(F.map((f) => f.ceiling.trained)))} | ${f2(mean(F.map((f) => f.score_before)))} → ${f2(mean(F.map((f) => f.score_after)))} | ${f2(mean(F.map((f) => f.accuracy_before)))} → ${f2(mean(F.map((f) => f.accuracy_after)))} |`;
  });
  return [
    "| Persona | Method | Channel | Seeds | Judge's sign = user's | Hint names the wish (of violated turns) | Ceiling with hint: base / trained | Complies without hint: before → after | Accuracy before → after |",
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
