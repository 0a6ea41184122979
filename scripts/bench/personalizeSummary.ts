/**
 * The personalization benchmark's summary (summary.md): per persona and method, the mean and the
 * spread (sample standard deviation) over seeds, every run, and the bars of issue 12 checked.
 */
import type { PersonalizeResult } from '../../main/bench/personalize.js';

export interface Stat {
  mean: number;
  sd: number;
  n: number;
}

export function stat(xs: number[]): Stat {
  const n = xs.length;
  const mean = n ? xs.reduce((a, b) => a + b, 0) / n : NaN;
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : 0;
  return { mean, sd, n };
}

const f2 = (s: Stat) => `${s.mean.toFixed(2)} ± ${s.sd.toFixed(2)}`;
const pts = (s: Stat) => `${(100 * s.mean).toFixed(1)} ± ${(100 * s.sd).toFixed(1)}`;

/** Sessions to three in a row: a run where it never happened counts as its number of sessions + 1 (a lower bound). */
function sessionsTo3(r: PersonalizeResult): number {
  return r.sessions_to_3_in_a_row ?? r.sessions + 1;
}

interface Group {
  persona: string;
  method: string;
  runs: PersonalizeResult[];
}

function groups(results: PersonalizeResult[]): Group[] {
  const out: Group[] = [];
  for (const r of results) {
    let g = out.find((x) => x.persona === r.persona && x.method === r.method);
    if (!g) out.push((g = { persona: r.persona, method: r.method, runs: [] }));
    g.runs.push(r);
  }
  return out;
}

function meanTable(gs: Group[]): string {
  const rows = gs.map((g) => {
    const R = g.runs;
    const drop = stat(R.map((r) => r.accuracy_before - r.accuracy_after));
    const never = R.filter((r) => r.sessions_to_3_in_a_row === null).length;
    return `| ${g.persona} | ${g.method} | ${R.length} | ${f2(stat(R.map((r) => r.score_before)))} → ${f2(stat(R.map((r) => r.score_after)))} | ${pts(stat(R.map((r) => r.accuracy_before)))} → ${pts(stat(R.map((r) => r.accuracy_after)))} | ${pts(drop)} | ${stat(R.map(sessionsTo3)).mean.toFixed(1)}${never ? ` (${never} never)` : ''} | ${stat(R.map((r) => r.gate.held_back)).mean.toFixed(1)} | ${(stat(R.map((r) => r.wall_s)).mean / 60).toFixed(1)} min |`;
  });
  return [
    '| Persona | Method | Seeds | Score before → after | Accuracy before → after (%) | Accuracy drop (points) | Sessions to 3 in a row | Held back | Wall time |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

function runTable(results: PersonalizeResult[]): string {
  const rows = results.map(
    (r) =>
      `| ${r.persona} | ${r.method} | ${r.seed} | ${r.score_before.toFixed(2)} → ${r.score_after.toFixed(2)} | ${(100 * r.accuracy_before).toFixed(1)} → ${(100 * r.accuracy_after).toFixed(1)} | ${r.sessions_to_3_in_a_row ?? 'never'} | ${r.training.steps} | ${r.gate.on ? `${r.gate.held_back} of ${r.gate.checked}` : 'gate off'} | ${r.gate.check_s_mean?.toFixed(1) ?? '–'} / ${r.gate.step_s_mean?.toFixed(1) ?? '–'} s | ${(r.wall_s / 60).toFixed(1)} min | ${((r.cpu_s ?? NaN) / 60).toFixed(1)} min |`,
  );
  return [
    '| Persona | Method | Seed | Score | Accuracy (%) | Sessions to 3 in a row | Steps | Held back | Check / step | Wall time | CPU time |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The bars, each with its figure and whether it holds. */
export function bars(results: PersonalizeResult[]): Array<{ bar: string; figure: string; ok: boolean }> {
  const gs = groups(results);
  const combine = gs.filter((g) => g.method === 'combine');
  const out: Array<{ bar: string; figure: string; ok: boolean }> = [];
  for (const g of combine) {
    const before = stat(g.runs.map((r) => r.score_before)).mean;
    const after = stat(g.runs.map((r) => r.score_after)).mean;
    const drop = stat(g.runs.map((r) => r.accuracy_before - r.accuracy_after)).mean;
    out.push({
      bar: `${g.persona}: score ≤ 0.40 → ≥ 0.85, accuracy drop ≤ 3 points (combine, mean)`,
      figure: `${before.toFixed(2)} → ${after.toFixed(2)}, drop ${(100 * drop).toFixed(1)} points`,
      ok: before <= 0.4 && after >= 0.85 && drop <= 0.03 + 1e-9,
    });
  }
  const meanAfter = (m: string) => stat(results.filter((r) => r.method === m).map((r) => r.score_after)).mean;
  for (const other of ['rl', 'opd']) {
    if (!results.some((r) => r.method === other) || !combine.length) continue;
    out.push({
      bar: `combine ≥ ${other} on the mean score after`,
      figure: `${meanAfter('combine').toFixed(3)} vs ${meanAfter(other).toFixed(3)}`,
      ok: meanAfter('combine') >= meanAfter(other),
    });
  }
  const c = results.filter((r) => r.method === 'combine');
  if (c.length) {
    const s = stat(c.map(sessionsTo3)).mean;
    out.push({ bar: 'sessions to 3 in a row ≤ 10 on the mean (combine)', figure: s.toFixed(1), ok: s <= 10 });
  }
  const slowest = Math.max(...results.map((r) => r.wall_s)) / 60;
  out.push({ bar: 'every persona run ≤ 10 min of wall time', figure: `slowest ${slowest.toFixed(1)} min`, ok: slowest <= 10 });
  return out;
}

export function summarize(results: PersonalizeResult[], command: string): string {
  const seeds = [...new Set(results.map((r) => r.seed))].sort((a, b) => a - b);
  return [
    `Command: \`${command}\` · seeds ${seeds.join(', ')} · mean ± sample standard deviation over the seeds.`,
    '',
    meanTable(groups(results)),
    '',
    '| Bar | Figure | Holds |',
    '|---|---|---|',
    ...bars(results).map((b) => `| ${b.bar} | ${b.figure} | ${b.ok ? 'yes' : 'no'} |`),
    '',
    'Every run:',
    '',
    runTable(results),
    '',
  ].join('\n');
}
