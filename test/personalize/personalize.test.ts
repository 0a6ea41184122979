import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../main/cli/main.js';
import type { PersonalizeResult } from '../../main/personalize/personalize.js';
import { longContextModel } from '../helpers/testServer.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), log: (s: string) => err.push(s) }, out, err };
}

describe('clawloop bench personalize (mechanics, on a tiny random model)', () => {
  it('runs a whole benchmark through the HTTP API and writes the JSON and the plot', { timeout: 300_000 }, async () => {
    const model = longContextModel('qwen3-qknorm', 1024);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-bench-test-'));
    const json = path.join(dir, 'out.json');
    const plot = path.join(dir, 'curve.png');
    // The benchmark's data folder goes under a temporary folder this test owns, so that another
    // benchmark running on the machine cannot make it look left behind.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-test-tmp-'));
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const c = capture();
      const code = await main(
        [
          'bench',
          'personalize',
          '--persona',
          'terse',
          '--method',
          'combine',
          '--interactions',
          '5',
          '--model',
          model,
          '--max-tokens',
          '8',
          '--curve-every',
          '2',
          '--seed',
          '3',
          '--json',
          json,
          '--plot',
          plot,
        ],
        c.io,
      );
      assert.equal(code, 0, c.err.join('\n'));
      const r = JSON.parse(fs.readFileSync(json, 'utf8')) as PersonalizeResult;
      for (const k of [
        'persona',
        'method',
        'interactions',
        'score_before',
        'score_after',
        'accuracy_before',
        'accuracy_after',
        'sessions_to_3_in_a_row',
        'wall_s',
        'curve',
      ])
        assert.ok(k in r, `missing ${k}`);
      assert.equal(r.persona, 'terse');
      assert.equal(r.method, 'combine');
      assert.equal(r.interactions, 5);
      assert.equal(r.online.length, 5);
      assert.equal(r.eval_before.length, 50);
      assert.equal(r.eval_after.length, 50);
      assert.deepEqual(r.curve[0], [0, r.score_before]);
      assert.deepEqual(r.curve.at(-1), [5, r.score_after]);
      assert.ok(r.curve.length >= 3, JSON.stringify(r.curve));
      assert.deepEqual(
        r.accuracy_curve.map(([x]) => x),
        r.curve.map(([x]) => x),
        'an accuracy point next to every score point',
      );
      // The tiny model ships no competence set: accuracy is that of the scored answers, and the gate is off and says why.
      assert.equal(r.accuracy_on, 'the scored answers');
      assert.equal(r.accuracy_before, r.answer_accuracy_before);
      assert.equal(r.gate.on, false);
      assert.match(r.gate.detail, /no clawloop_competence\.jsonl/);
      assert.equal(r.gate.held_back, 0);
      assert.ok(r.sessions >= 2 && r.sessions <= 5);
      assert.ok(r.wall_s > 0 && r.timing.eval_s > 0);
      assert.equal(r.data_dir, null);
      assert.equal(fs.readFileSync(plot).subarray(1, 4).toString(), 'PNG');
      assert.match(c.out.join(''), /personalization score {2}\d\.\d\d -> \d\.\d\d/);
      // The funnel: each judged turn counted once, hints only on turns that violated a wish.
      const f = r.funnel;
      assert.equal(f.channel, 'implicit');
      assert.ok(f.judge.judged <= 5 && f.judge.agree + f.judge.opposite + f.judge.unsure === f.judge.judged, JSON.stringify(f.judge));
      assert.equal(f.hint.violated, r.online.filter((ok) => !ok).length);
      assert.ok(f.hint.names_wish <= f.hint.hinted && f.hint.trained <= f.hint.hinted && f.hint.hinted <= f.hint.violated);
      assert.deepEqual([f.score_before, f.score_after, f.accuracy_after], [r.score_before, r.score_after, r.accuracy_after]);
      assert.ok(r.trained_to_live.live <= r.trained_to_live.trained);
      assert.match(c.out.join(''), /funnel \(implicit\)[\s\S]*trained -> live/);
      // The temporary data folder is gone.
      assert.deepEqual(fs.readdirSync(tmp), []);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(model, { recursive: true, force: true });
    }
  });

  it(
    'with --channel explicit, every 👎 carries the complaint as a typed hint, and every typed hint trains',
    { timeout: 300_000 },
    async () => {
      const model = longContextModel('qwen3-qknorm', 1024);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-bench-test-'));
      const json = path.join(dir, 'out.json');
      try {
        const c = capture();
        // A wish a random model never meets: every answer is a 👎 with its complaint.
        const persona = path.join(dir, 'sign-off.json');
        fs.writeFileSync(
          persona,
          JSON.stringify({
            name: 'sign-off',
            task: 'arithmetic',
            max_turns_per_session: 2,
            rules: [{ id: 'sign_off', type: 'ends_with', value: 'Over and out.' }],
            feedback: { satisfied: ['Good.'], violated: { sign_off: ['Sign off with "Over and out." please.'] } },
          }),
        );
        const argv = ['bench', 'personalize', '--persona', persona, '--method', 'combine', '--channel', 'explicit', '--interactions', '4'];
        argv.push('--model', model, '--max-tokens', '24', '--curve-every', '0', '--seed', '2', '--json', json);
        assert.equal(await main(argv, c.io), 0, c.err.join('\n'));
        const r = JSON.parse(fs.readFileSync(json, 'utf8')) as PersonalizeResult;
        const h = r.funnel.hint;
        assert.equal(r.funnel.channel, 'explicit');
        assert.equal(h.violated, r.online.filter((ok) => !ok).length);
        assert.equal(h.violated, 4);
        assert.deepEqual([h.hinted, h.trained, h.names_wish], [4, 4, 4], JSON.stringify(h));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
        fs.rmSync(model, { recursive: true, force: true });
      }
    },
  );

  it('explains bad arguments', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['bench'], /name a benchmark: personalize/],
      [['bench', 'speed'], /unknown benchmark 'speed'/],
      [['bench', 'personalize', '--persona', 'terse', '--interactions', '3'], /--method is required/],
      [
        ['bench', 'personalize', '--persona', 'terse', '--method', 'magic', '--interactions', '3'],
        /--method must be one of off, rl, opd, combine/,
      ],
      [['bench', 'personalize', '--persona', 'nobody', '--method', 'rl', '--interactions', '3'], /no persona file 'nobody'/],
      [['bench', 'personalize', '--persona', 'terse', '--method', 'rl', '--interactions', '0'], /--interactions must be an integer >= 1/],
      [
        ['bench', 'personalize', '--persona', 'terse', '--method', 'rl', '--interactions', '2', '--eval-prompts', '10'],
        /--eval-prompts must be an integer >= 50/,
      ],
      [
        ['bench', 'personalize', '--persona', 'terse', '--method', 'rl', '--interactions', '2', '--channel', 'email'],
        /--channel must be one of implicit, explicit/,
      ],
    ];
    for (const [argv, re] of cases) {
      const c = capture();
      assert.equal(await main(argv, c.io), 2, argv.join(' '));
      assert.match(c.err.join('\n'), re);
    }
  });
});
