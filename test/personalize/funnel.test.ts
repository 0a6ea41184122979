import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { funnelOf, hintFunnel, hintNamesWish, judgeFunnel, wishKeywords, type TurnRecord } from '../../main/personalize/funnel.js';
import { funnelLines, funnelTable } from '../../main/personalize/funnelReport.js';
import { liveDelay, median } from '../../main/personalize/liveDelay.js';
import { parsePersona } from '../../main/personalize/persona.js';

/** An inline persona (never a file of the repository): no bold, and at most two sentences. */
const persona = parsePersona(
  {
    name: 'fake',
    task: 'arithmetic',
    max_turns_per_session: 3,
    rules: [
      { id: 'no_bold', type: 'absent', pattern: '\\*\\*' },
      { id: 'two_sentences', type: 'max_sentences', value: 2 },
      { id: 'radio_signoff', type: 'ends_with', value: 'Over.' },
    ],
    feedback: { satisfied: ['ok'], violated: { default: ['no'] } },
  },
  'inline',
);
const rule = (id: string) => persona.rules.find((r) => r.id === id)!;

const turn = (ok: boolean, violated: string | null, prm: number | null, hint: string | null, hintTrained = hint !== null): TurnRecord => ({
  ok,
  violated,
  prm,
  hint,
  hintTrained,
});

/** A fake run of eight turns: what the user felt, what the judges made of it. */
const FAKE: TurnRecord[] = [
  turn(false, 'no_bold', -1, 'Do not use bold text.'), // agrees; names the wish
  turn(false, 'no_bold', 1, null), // opposite; no hint
  turn(false, 'two_sentences', 0, 'Keep it brief.', false), // unsure; names it (a type word); dropped by hint_min_gap
  turn(false, 'two_sentences', -1, 'Use a friendly tone.'), // agrees; does not name it
  turn(false, 'radio_signoff', null, 'End with Over.'), // not judged; names it
  turn(true, null, 1, null), // agrees
  turn(true, null, -1, null), // opposite
  turn(true, null, null, null), // not judged
];

describe('the funnel (where the signal goes)', () => {
  it("counts the judge's sign against the user's truth", () => {
    assert.deepEqual(judgeFunnel(FAKE), { judged: 6, agree: 3, opposite: 2, unsure: 1, agreement: 0.5 });
    assert.deepEqual(judgeFunnel([]), { judged: 0, agree: 0, opposite: 0, unsure: 0, agreement: null });
  });

  it('counts, of the turns that violated a wish, the hinted ones, those naming the wish and those that train', () => {
    assert.deepEqual(hintFunnel(FAKE, persona.rules), { violated: 5, hinted: 4, names_wish: 3, trained: 3, names_wish_rate: 0.6 });
    assert.equal(hintFunnel(FAKE.slice(5), persona.rules).names_wish_rate, null, 'no violated turn: no rate');
  });

  it("a hint names the wish by the rule id's words, its literal value or its type's words, and its limits show", () => {
    assert.deepEqual(wishKeywords(rule('no_bold')), ['bold']);
    assert.ok(wishKeywords(rule('radio_signoff')).includes('over'));
    assert.equal(hintNamesWish('Please stop bolding words.', rule('no_bold')), true);
    assert.equal(hintNamesWish('Sentences: two at most.', rule('two_sentences')), true);
    assert.equal(hintNamesWish('Finish every reply with "Over."', rule('radio_signoff')), true);
    // Limits: another wording of the same wish is missed; a generic word of the right type is enough.
    assert.equal(hintNamesWish('the thick starred words give it away', rule('no_bold')), false);
    assert.equal(hintNamesWish('Keep it short and friendly.', rule('two_sentences')), true);
    // Short words and stop words never match on their own ("a" is not "all", "no" is not "not").
    assert.equal(hintNamesWish('a no', rule('no_bold')), false);
  });

  it('gathers one run: channel, counts, ceiling and the before/after figures, printed for a person', () => {
    const ceiling = { hints: 4, samples: 8, base: 0.25, trained: 0.5 };
    const m = { score_before: 0.1, score_after: 0.6, accuracy_before: 0.7, accuracy_after: 0.69 };
    const f = funnelOf('explicit', FAKE, persona.rules, ceiling, m);
    assert.equal(f.channel, 'explicit');
    assert.equal(f.judge.agreement, 0.5);
    assert.equal(f.hint.names_wish, 3);
    assert.deepEqual(f.ceiling, ceiling);
    const lines = funnelLines({
      persona: 'fake',
      method: 'combine',
      seed: 1,
      funnel: f,
      trained_to_live: { trained: 3, live: 2, median_s: 4, max_s: 6 },
    }).join('\n');
    assert.match(lines, /judge's sign = user's {2}0\.50 \(3 of 6 judged turns; 2 opposite, 1 unsure\)/);
    assert.match(lines, /hint names the wish {4}3 of 5 violated turns \(4 hinted, 3 trained with a hint\)/);
    assert.match(lines, /ceiling with the hint {2}base 0\.25, trained 0\.50/);
    assert.match(lines, /median 4\.0 s, max 6\.0 s \(2 of 3 checkpoints live\)/);
  });

  it('sums the counts over seeds and averages the rates, per persona, method and channel', () => {
    const ceiling = { hints: 1, samples: 2, base: 0, trained: 1 };
    const m = { score_before: 0, score_after: 1, accuracy_before: 0.5, accuracy_after: 0.5 };
    const run = (seed: number, turns: TurnRecord[]) => ({
      persona: 'fake',
      method: 'combine',
      seed,
      funnel: funnelOf('implicit', turns, persona.rules, ceiling, m),
      trained_to_live: { trained: 1, live: 1, median_s: 1, max_s: 1 },
    });
    const table = funnelTable([run(1, FAKE), run(2, FAKE.slice(0, 2))]);
    // Judge: seed 1 agrees 3 of 6 (0.50), seed 2 agrees 1 of 2 (0.50); hints name the wish 3 + 1 of 5 + 2 violated.
    assert.match(
      table,
      /\| fake \| combine \| implicit \| 2 \| 0\.50 \(4 of 8\) \| 4 of 7 \(5 of 7 hinted\) \| 0\.00 \/ 1\.00 \| 0\.00 → 1\.00 \| 0\.50 → 0\.50 \|/,
    );
  });
});

describe('trained to live', () => {
  it('median of an odd and an even count, none for nothing', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([]), null);
  });

  it("measures each checkpoint's first live event for a training step, and leaves out those held back", () => {
    const ev = (id: string | null, reason: string, at: number) => ({
      name: 'adapter.live',
      data: JSON.stringify({ version: 1, checkpoint_id: id, reason }),
      at,
    });
    const d = liveDelay(
      [
        { id: 'a', created_at: 1_000 },
        { id: 'b', created_at: 5_000 },
        { id: 'held', created_at: 9_000 },
      ],
      [
        ev(null, 'startup', 0),
        ev('a', 'trained', 3_000),
        { name: 'checkpoint.saved', data: '{}', at: 5_000 },
        ev('b', 'trained', 6_000),
        ev('a', 'rollback', 20_000),
      ],
    );
    assert.deepEqual(d, { trained: 3, live: 2, median_s: 1.5, max_s: 2 });
  });
});
