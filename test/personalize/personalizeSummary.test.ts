import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PersonalizeResult } from '../../main/personalize/personalize.js';
import { bars, stat, summarize } from '../../scripts/bench/personalizeSummary.js';

function run(
  persona: string,
  method: string,
  seed: number,
  o: { before: number; after: number; acc: [number, number]; s3: number | null; wall: number; live?: number | null },
) {
  return {
    persona,
    method,
    seed,
    score_before: o.before,
    score_after: o.after,
    accuracy_before: o.acc[0],
    accuracy_after: o.acc[1],
    sessions_to_3_in_a_row: o.s3,
    sessions: 20,
    wall_s: o.wall,
    training: { steps: 9 },
    gate: { on: true, detail: '', checked: 9, held_back: 2, check_s_mean: 3, step_s_mean: 2 },
    ...(o.live !== undefined ? { trained_to_live: { trained: 9, live: 7, median_s: o.live, max_s: o.live } } : {}),
  } as unknown as PersonalizeResult;
}

describe('personalization summary', () => {
  it('mean and sample standard deviation', () => {
    assert.deepEqual(stat([1, 2, 3]), { mean: 2, sd: 1, n: 3 });
    assert.deepEqual(stat([5]), { mean: 5, sd: 0, n: 1 });
  });

  it('checks the bars on the means over seeds, and says which fail', () => {
    const good = { before: 0.1, after: 0.9, acc: [0.7, 0.69] as [number, number], s3: 8, wall: 300 };
    const results = [
      run('a', 'combine', 1, good),
      run('a', 'combine', 2, { ...good, after: 0.86, acc: [0.7, 0.66] }),
      run('a', 'rl', 1, { ...good, after: 0.5 }),
      run('a', 'opd', 1, { ...good, after: 0.95, s3: null, wall: 700 }),
    ];
    const b = bars(results);
    const find = (re: RegExp) => b.find((x) => re.test(x.bar))!;
    assert.equal(find(/^a: score/).ok, true, find(/^a: score/).figure); // mean after 0.88, mean drop 2.5 points
    assert.equal(find(/combine ≥ rl/).ok, true);
    assert.equal(find(/combine ≥ opd/).ok, false);
    assert.equal(find(/sessions to 3/).figure, '8.0');
    assert.equal(find(/wall time/).ok, false);
    const md = summarize(results, 'npm run bench:personalize -- --seeds 1,2');
    assert.match(md, /\| a \| combine \| 2 \| 0\.10 ± 0\.00 → 0\.88 ± 0\.03 \|/);
    assert.match(md, /\| a \| opd \| 1 \| .* \| 21\.0 \(1 never\) \|/);
  });

  it('a persona the base model already satisfies at ≥ 0.40 counts for the end and accuracy bars, not the start bar', () => {
    const easy = { before: 0.45, after: 0.9, acc: [0.7, 0.69] as [number, number], s3: 4, wall: 300 };
    const ok = bars([run('easy', 'combine', 1, easy), run('easy', 'combine', 2, { ...easy, before: 0.55 })]);
    const bar = ok.find((x) => /^easy: score/.test(x.bar))!;
    assert.equal(bar.ok, true, bar.figure);
    assert.match(bar.bar, /already ≥ 0\.40 at the start/);
    const notThere = bars([run('easy', 'combine', 1, { ...easy, after: 0.8 })]).find((x) => /^easy: score/.test(x.bar))!;
    assert.equal(notThere.ok, false, 'the end bar still counts');
    const dropped = bars([run('easy', 'combine', 1, { ...easy, acc: [0.7, 0.65] })]).find((x) => /^easy: score/.test(x.bar))!;
    assert.equal(dropped.ok, false, 'the accuracy bar still counts');
  });

  it('a combine run that never got three in a row fails the sessions bar: its count is only a lower bound', () => {
    const r = { before: 0.1, after: 0.9, acc: [0.7, 0.7] as [number, number], s3: 2, wall: 300 };
    const b = bars([run('a', 'combine', 1, r), run('a', 'combine', 2, { ...r, s3: null })]).find((x) => /sessions to 3/.test(x.bar))!;
    // Never counts as sessions + 1 = 21: the mean (2 + 21) / 2 is a lower bound.
    assert.deepEqual([b.ok, b.figure], [false, 'at least 11.5 (1 of 2 runs never)']);
  });

  it("checks trained → live ≤ 15 s on the median of the runs' medians, when runs measured it", () => {
    const base = { before: 0.1, after: 0.9, acc: [0.7, 0.7] as [number, number], s3: 4, wall: 300 };
    const live = (xs: Array<number | null>) =>
      bars(xs.map((x, i) => run('a', 'combine', i + 1, { ...base, live: x }))).find((b) => /trained → live/.test(b.bar));
    assert.deepEqual([live([3, 20, 12])!.ok, live([3, 20, 12])!.figure], [true, '12.0 s over 3 runs']);
    assert.equal(live([16, 20, null])!.ok, false);
    assert.equal(live([null]), undefined, 'no run measured it: no bar');
    assert.equal(
      bars([run('a', 'combine', 1, base)]).some((b) => /trained → live/.test(b.bar)),
      false,
      'results from before the funnel have no such bar',
    );
  });
});
