/**
 * Phrase set 4: user replies reworded as people type them (scripts/default-model/replyNoise.ts),
 * varied enough to teach the judges meaning over surface, and never losing a correction's figures.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../main/util/random.js';
import { userReaction } from '../../scripts/default-model/feedback.js';
import { reword } from '../../scripts/default-model/replyNoise.js';

describe('user replies as people type them (phrase set 4)', () => {
  it('a wish comes back in many surface forms: casual, with typos, in a few words, sarcastic, indirect, wordy', () => {
    const r = new Rng(1);
    const base = 'Please write it without the bold and the lists.';
    const outs = new Set(Array.from({ length: 300 }, () => reword(r, 'want-plain', base)));
    assert.ok(outs.size > 20, `${outs.size} distinct replies`);
    const all = [...outs];
    assert.ok(all.includes(base), 'sometimes the reply itself');
    assert.ok(
      all.some((s) => s.startsWith('pls write it')),
      'casual',
    );
    assert.ok(
      all.some((s) => s.split(' ').length <= 4),
      'a few words',
    );
    assert.ok(
      all.some((s) => /oh great|not\./.test(s)),
      'sarcastic',
    );
    assert.ok(
      all.some((s) => /teacher|plain email/.test(s)),
      'indirect',
    );
    assert.ok(
      all.some((s) => s.length > base.length + 30),
      'many words',
    );
    assert.ok(
      all.some((s) => s.toLowerCase() !== base.toLowerCase() && s.length >= base.length - 2 && s.length <= base.length + 1),
      'typos',
    );
  });

  it('a correction keeps every figure it names; set 4 is reproducible from the seed', () => {
    const slip = { expr: '8 × 9 + 1250', result: 1322, said: 1321 };
    for (let seed = 0; seed < 200; seed++) {
      const s = userReaction(new Rng(seed), 'wrong-answer', slip, 4);
      const base = userReaction(new Rng(seed), 'wrong-answer', slip, 3);
      const figures = (t: string) => (t.match(/\d+/g) ?? []).join(',');
      assert.ok(figures(s) === figures(base) || figures(base) === '', `"${s}" lost figures of "${base}"`);
    }
    assert.equal(userReaction(new Rng(9), 'want-terse', undefined, 4), userReaction(new Rng(9), 'want-terse', undefined, 4));
  });
});
