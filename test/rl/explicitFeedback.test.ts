import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Model } from '../../main/engine/model/model.js';
import { DEFAULT_TRAINING_CONFIG, type TrainingConfig } from '../../main/protocol/training.js';
import { JudgeInputError, type JudgeBackend } from '../../main/rl/judge.js';
import { DEFAULT_JUDGE_PROMPTS } from '../../main/rl/judgePrompts.js';
import { buildSamples } from '../../main/rl/sampleBuilder.js';
import type { Feedback } from '../../main/store/learnStore.js';
import type { StoredTurn } from '../../main/store/turnStore.js';
import { modelDir } from '../helpers/paths.js';
import { chat, longContextModel, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

/** A judge that reads every turn as good and offers its own hint. */
const pleased = (): JudgeBackend => {
  const answers = ['\\boxed{1}', '\\boxed{1}\n[HINT_START]Add a fun fact at the end.[HINT_END]'];
  return { description: 'pleased', complete: async () => answers.shift() ?? '' };
};
/** A judge whose model is down, and one that can never read the turn. */
const down: JudgeBackend = {
  description: 'down',
  complete: async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:9');
  },
};
const unreadable: JudgeBackend = {
  description: 'unreadable',
  complete: async () => {
    throw new JudgeInputError('the judge prompt does not fit');
  },
};

const fb = (rating: Feedback['rating'], hint: string | null): Feedback => ({ rating, hint, judgeHintRejected: false, updatedAt: 1 });

describe('explicit feedback does not depend on the judge (issue 38)', () => {
  let t: TestServer;
  let model: Model;
  let turn: StoredTurn;
  before(async () => {
    t = await startTestServer({ modelPath: longContextModel('qwen3-qknorm', 4096), train: { method: 'off' } });
    const first = await chat(t, 'what is two plus two?', { session: 'fb', type: 'main', maxTokens: 6, seed: 3 });
    await chat(t, 'Thanks, great answer!', { session: 'fb', type: 'main', maxTokens: 2 });
    turn = await waitFor(() => {
      const x = t.learn.turns.getTurn(first.id);
      return x?.nextState ? x : null;
    }, 'the next state');
    model = await Model.load(modelDir('qwen3-qknorm'));
  });
  after(async () => {
    model.dispose();
    await t.close();
  });

  const build = (judge: JudgeBackend, feedback: Feedback | null, over: Partial<TrainingConfig> = {}) =>
    buildSamples(
      {
        model,
        policy: null,
        policyVersion: 0,
        judge,
        prompts: DEFAULT_JUDGE_PROMPTS,
        // hint_min_gap 5: no judge's hint could train, and a typed hint always does.
        config: { ...DEFAULT_TRAINING_CONFIG, method: 'combine', hint_min_gap: 5, ...over },
      },
      { turn, feedback, judgements: [], firstWithNextState: true },
    );
  const own = (r: Awaited<ReturnType<typeof build>>) => {
    const s = r.samples[0];
    return [s.kind, s.reward, s.rewardSource, s.hint, s.hintSource];
  };

  it('a 👎 is the reward as given and a typed hint trains as written, whatever the judge read', async () => {
    const typed = 'no bold pls,, and keep it short';
    const r = await build(pleased(), fb('down', typed));
    assert.deepEqual(own(r), ['both', -1, 'feedback', typed, 'feedback']);
    // The PRM still ran, for the record (judge agreement), and read the turn the other way.
    assert.equal(r.judgements.find((j) => j.kind === 'prm')?.score, 1);
    assert.equal(r.judgeFailed, undefined);
  });

  it('a judge that is down or cannot read the turn leaves the feedback to train alone', async () => {
    for (const judge of [down, unreadable]) {
      const both = await build(judge, fb('down', 'Shorter.'));
      assert.deepEqual(own(both), ['both', -1, 'feedback', 'Shorter.', 'feedback'], judge.description);
      assert.match(both.judgeFailed ?? '', /PRM failed .*trains without it/);
      const rating = await build(judge, fb('up', null));
      assert.deepEqual(own(rating), ['rl', 1, 'feedback', null, null], judge.description);
      const hint = await build(judge, fb(null, 'Use metres.'));
      assert.deepEqual(own(hint), ['opd', null, null, 'Use metres.', 'feedback'], judge.description);
    }
    // A PRM that can never read the turn is recorded with no score, so it is not asked again.
    const r = await build(unreadable, fb('down', null));
    assert.deepEqual(
      r.judgements.map((j) => [j.kind, j.score]),
      [['prm', null]],
    );
  });

  it('without feedback a failing judge still stops the turn (it has nothing else to train with)', async () => {
    await assert.rejects(build(down, null), /ECONNREFUSED/);
    await assert.rejects(build(unreadable, null), JudgeInputError);
  });
});
