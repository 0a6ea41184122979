import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Model } from '../../main/engine/model/model.js';
import { HINT_MARKER } from '../../main/engine/text/openaiMessages.js';
import { scoreResponses } from '../../main/engine/generation/score.js';
import { generateText } from '../../main/engine/generation/generate.js';
import { DEFAULT_TRAINING_CONFIG } from '../../main/protocol/training.js';
import { droppedHintReason, explains, meanGap } from '../../main/rl/hintExplains.js';
import { buildSamples, judgeSeed } from '../../main/rl/sampleBuilder.js';
import { DEFAULT_JUDGE_PROMPTS } from '../../main/rl/judgePrompts.js';
import { logprobScale, logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { modelDir } from '../helpers/paths.js';
import { api, chat, longContextModel, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

interface SessionView {
  turns: Array<{
    id: string;
    type: string;
    judgements: Array<{ kind: string; score: number | null; votes: unknown[] }>;
    samples: Array<{
      kind: string;
      reward: number | null;
      reward_source: string | null;
      hint: string | null;
      status: string;
      response: string;
    }>;
  }>;
}

const feedback = (t: TestServer, completion_id: string, body: Record<string, unknown>) =>
  api(t, 'POST', '/v1/feedback', { completion_id, ...body });

describe('training signals over HTTP (tiny model, OpenClaw headers)', () => {
  let t: TestServer;
  before(async () => {
    // A batch size no test reaches: samples stay queued where the test can read them.
    t = await startTestServer({
      modelPath: longContextModel('qwen3-qknorm', 4096),
      train: { method: 'combine', batch_size: 1000, judge_max_tokens: 16 },
    });
  });
  after(() => t.close());

  it('a 👎 turn yields reward −1; side turns and turns without a session yield nothing', async () => {
    const side = await chat(t, 'heartbeat', { session: 'fb', type: 'side' });
    const loose = await chat(t, 'no headers');
    const main = await chat(t, 'hello', { session: 'fb', type: 'main' });
    for (const id of [side.id, loose.id]) {
      const r = await feedback(t, id, { rating: 'down' });
      assert.equal(r.status, 200);
      assert.equal((r.body as { trainable: boolean }).trainable, false);
    }
    const r = await feedback(t, main.id, { rating: 'down' });
    assert.deepEqual([r.status, (r.body as { trainable: boolean }).trainable], [200, true]);
    const s = await waitFor(() => t.learn.samplesOfTurn(main.id)[0], 'the 👎 sample');
    assert.deepEqual([s.kind, s.reward, s.rewardSource, s.status], ['rl', -1, 'feedback', 'queued']);
    assert.equal(s.adapterVersion, 0);
    // The trainer works in arrival order, so by now it has seen the side and sessionless turns.
    assert.deepEqual(t.learn.samplesOfTurn(side.id), []);
    assert.deepEqual(t.learn.samplesOfTurn(loose.id), []);
  });

  it('a hinted turn yields an OPD sample whose teacher log-probs equal scoring the response under the hint-augmented prompt, adapter off', async () => {
    const hint = 'Answer with a single friendly sentence.';
    const turn = await chat(t, 'what is two plus two?', { session: 'opd', type: 'main', maxTokens: 6, seed: 3 });
    assert.equal((await feedback(t, turn.id, { hint })).status, 200);
    const s = await waitFor(() => t.learn.samplesOfTurn(turn.id)[0], 'the OPD sample');
    assert.deepEqual([s.kind, s.hint, s.hintSource, s.reward], ['opd', hint, 'feedback', null]);
    // Independently: the same conversation with the hint block appended to the user message.
    const model = await Model.load(modelDir('qwen3-qknorm')); // same weights and tokenizer as the served copy
    const stored = t.learn.turns.getTurn(turn.id)!;
    const teacherIds = model.encodeChat({ messages: [{ role: 'user', content: `what is two plus two?\n\n${HINT_MARKER}\n${hint}` }] }).ids;
    const [expected] = await scoreResponses(model.lm, [{ promptIds: teacherIds, responseIds: stored.responseIds }], { adapter: null });
    // The trainer scores in its worker (batched with other samples); this is one pass alone.
    const tol = tolerance(logprobsModel(model.config, teacherIds.length + stored.responseIds.length));
    const scale = logprobScale(model.config, expected.logprobs);
    model.dispose();
    assert.equal(s.teacherLogprobs!.length, stored.responseIds.length);
    assertClose(s.teacherLogprobs!, expected.logprobs, tol, 'teacher log-probs', { scale });
  });

  /**
   * A turn hinted by the user with one policy rollout on: returns its stored turn and the rollout
   * sample, after checking the rollout's teacher log-probs and π_old against scoring its tokens
   * independently (base model: nothing has trained), and the session view's label.
   */
  async function rolledOut(question: string, session: string, seed: number) {
    const writer = 'policy';
    const setting = 'policy_rollouts';
    await t.trainer!.setConfig({ [setting]: 1 });
    const hint = 'Answer in one short line.';
    const turn = await chat(t, question, { session, type: 'main', maxTokens: 6, seed });
    assert.equal((await feedback(t, turn.id, { hint })).status, 200);
    const samples = await waitFor(() => (t.learn.samplesOfTurn(turn.id).length ? t.learn.samplesOfTurn(turn.id) : null), 'the samples');
    await t.trainer!.setConfig({ [setting]: 0 });
    assert.equal(samples.length, 2);
    const [own, rollout] = samples;
    assert.equal(own.response, null);
    assert.deepEqual(
      [rollout.kind, rollout.hint, rollout.reward, rollout.adapterVersion, rollout.response?.writer],
      ['opd', hint, null, 0, writer],
    );
    const ids = rollout.response!.ids;
    assert.ok(ids.length > 0);
    const stored = t.learn.turns.getTurn(turn.id)!;
    const model = await Model.load(modelDir('qwen3-qknorm'));
    const teacherIds = model.encodeChat({ messages: [{ role: 'user', content: `${question}\n\n${HINT_MARKER}\n${hint}` }] }).ids;
    const [teacher, policy] = await scoreResponses(
      model.lm,
      [
        { promptIds: teacherIds, responseIds: ids },
        { promptIds: stored.promptIds, responseIds: ids },
      ],
      { adapter: null },
    );
    const tol = tolerance(logprobsModel(model.config, teacherIds.length + ids.length));
    const scale = logprobScale(model.config, teacher.logprobs);
    assertClose(rollout.teacherLogprobs!, teacher.logprobs, tol, `the teacher's log-probs of the ${writer}'s answer`, { scale });
    assertClose(rollout.response!.logprobs, policy.logprobs, tol, `the policy's log-probs of the ${writer}'s answer (π_old)`, { scale });
    const view = await api<SessionView>(t, 'GET', `/api/sessions/${session}`);
    assert.deepEqual(
      view.body.turns[0].samples.map((x) => x.response),
      ['turn', writer],
    );
    return { model, stored, rollout };
  }

  it('with policy_rollouts, a hinted turn also yields an OPD sample on another answer the policy writes to the same prompt, scored by the teacher', async () => {
    const { model, stored, rollout } = await rolledOut('name an animal', 'again', 9);
    // The policy's answer to the turn's own prompt (no hint), sampled as the trainer samples it.
    const g = model.generation;
    const written = await generateText(model.lm, model.tokenizer, stored.promptIds, {
      maxNewTokens: Math.max(128, 2 * stored.responseIds.length),
      temperature: g.temperature ?? 1,
      topP: g.topP ?? 1,
      topK: g.topK ?? 0,
      seed: judgeSeed(stored, 11),
      stopTokenIds: g.eosTokenIds,
    });
    model.dispose();
    assert.deepEqual(rollout.response!.ids, written.tokens);
  });

  it("a judge's hint is rolled out only when the turn's own OPD sample pushes its answer down (rollout_min_gap)", async () => {
    const first = await chat(t, 'name a fruit', { session: 'gap', type: 'main', maxTokens: 6, seed: 7 });
    await chat(t, 'Too long, one word please.', { session: 'gap', type: 'main', maxTokens: 2 });
    const stored = await waitFor(() => {
      const turn = t.learn.turns.getTurn(first.id);
      return turn?.nextState ? turn : null;
    }, 'the next state');
    const model = await Model.load(modelDir('qwen3-qknorm'));
    const built = async (oldLogprob: number, over: Partial<typeof DEFAULT_TRAINING_CONFIG> = {}) => {
      // A PRM vote of −1, then a hint; π_old is set so the mean advantage has a known sign.
      const answers = ['\\boxed{-1}', '\\boxed{1}\n[HINT_START]Answer with one word only.[HINT_END]'];
      const judge = { description: 'scripted', complete: async () => answers.shift() ?? '' };
      const turn = { ...stored, responseLogprobs: stored.responseLogprobs.map(() => oldLogprob) };
      const config = { ...DEFAULT_TRAINING_CONFIG, method: 'combine' as const, policy_rollouts: 1, rollout_min_gap: 0.05, ...over };
      const ctx = { model, policy: null, policyVersion: 0, judge, prompts: DEFAULT_JUDGE_PROMPTS, config };
      const r = await buildSamples(ctx, { turn, feedback: null, judgements: [], firstWithNextState: true });
      // The hint judge's record keeps its hint whether or not the hint trains.
      assert.match(r.judgements.find((j) => j.kind === 'hint')?.hint ?? '', /one word only/);
      return r.samples.map((x) => [x.kind, x.hintSource, x.response?.writer ?? 'turn']);
    };
    try {
      // π_old 0: every teacher log-prob is below it, so the hint explains the complaint.
      assert.deepEqual(await built(0), [
        ['both', 'judge', 'turn'],
        ['opd', 'judge', 'policy'],
      ]);
      // π_old −1000: the hinted teacher likes the answer far better than the policy did.
      assert.deepEqual(await built(-1000), [['both', 'judge', 'turn']]);
      // With hint_min_gap the same hint trains nothing: the turn keeps its reward alone.
      assert.deepEqual(await built(-1000, { hint_min_gap: 0.05 }), [['rl', null, 'turn']]);
      assert.deepEqual(await built(0, { hint_min_gap: 0.05 }), [
        ['both', 'judge', 'turn'],
        ['opd', 'judge', 'policy'],
      ]);
    } finally {
      model.dispose();
    }
  });

  it('👍 plus a hint yields one combined sample', async () => {
    const turn = await chat(t, 'tell me a fact', { session: 'both', type: 'main' });
    await feedback(t, turn.id, { rating: 'up', hint: 'Mention where the fact comes from.' });
    const s = await waitFor(() => t.learn.samplesOfTurn(turn.id)[0], 'the combined sample');
    assert.deepEqual([s.kind, s.reward, s.hint !== null], ['both', 1, true]);
  });

  it('next states go to the judges; their votes are stored; score 0 keeps only the first turn of a session (at-least-one)', async () => {
    await t.trainer!.setConfig({ method: 'rl', votes: 2 });
    const a = await chat(t, 'first question', { session: 'prm', type: 'main' });
    const b = await chat(t, 'thanks! now another', { session: 'prm', type: 'main' });
    await chat(t, 'ok, bye', { session: 'prm', type: 'main', done: true });
    const view = await waitFor(async () => {
      const r = await api<SessionView>(t, 'GET', '/api/sessions/prm');
      return r.body.turns.filter((x) => x.judgements.length).length >= 2 ? r.body : null;
    }, 'judgements of both linked turns');
    const [ta, tb] = view.turns;
    assert.equal(ta.id, a.id);
    assert.equal(tb.id, b.id);
    for (const turn of [ta, tb]) {
      const prm = turn.judgements.find((j) => j.kind === 'prm')!;
      assert.equal(prm.votes.length, 2, 'm = 2 votes');
      assert.equal(prm.score, 0, 'a random tiny model never answers in the boxed format');
    }
    assert.deepEqual(
      ta.samples.map((s) => [s.kind, s.reward, s.reward_source]),
      [['rl', 0, 'at_least_one']],
    );
    assert.deepEqual(tb.samples, [], 'a score of 0 trains nothing after the first turn');
  });
});

describe('a turn the judge cannot read', () => {
  it('is skipped with the reason and does not hold up later turns', async () => {
    // The fixture model reads 256 tokens; the judge prompt alone is longer.
    const t = await startTestServer({ train: { method: 'rl', batch_size: 1000, judge_max_tokens: 16 } });
    try {
      const a = await chat(t, 'one', { session: 'short', type: 'main' });
      await chat(t, 'two', { session: 'short', type: 'main' });
      const later = await chat(t, 'three', { session: 'other', type: 'main' });
      await api(t, 'POST', '/v1/feedback', { completion_id: later.id, rating: 'up' });
      await waitFor(() => t.learn.samplesOfTurn(later.id)[0], "the later turn's sample");
      assert.match(t.learn.learnNote(a.id)!, /does not fit .*context/);
      const view = await api<{ turns: Array<{ learn_note: string | null }> }>(t, 'GET', '/api/sessions/short');
      assert.match(view.body.turns[0].learn_note!, /judge prompt does not fit/);
    } finally {
      await t.close();
    }
  });
});

describe('which hints the policy rolls out again (rollout_min_gap)', () => {
  const cfg = { ...DEFAULT_TRAINING_CONFIG, policy_rollouts: 1, rollout_min_gap: 0.05 };
  const old = [-0.5, -1.2, -0.1, -2.0];

  it("rolls out a judge's hint under which the turn's answer is clearly less likely", () => {
    // Mean gap −0.25 nats per token: the hint explains what the user disliked.
    assert.equal(explains(cfg, 'judge', [-0.5, -1.2, -0.1, -3.0], old), true);
    assert.equal(meanGap([-0.5, -1.2, -0.1, -3.0], old), -0.25);
  });

  it("skips a judge's hint the answer already satisfies, or one that barely moves it", () => {
    assert.equal(explains(cfg, 'judge', [-0.4, -1.1, -0.1, -1.9], old), false, 'the teacher likes the answer more');
    assert.equal(explains(cfg, 'judge', [-0.5, -1.2, -0.1, -2.12], old), false, 'a gap of 0.03 nats per token');
    assert.equal(explains(cfg, 'judge', [NaN, -Infinity], [NaN, -1]), false, 'no token to compare');
  });

  it('always rolls out a typed hint, and every hint with rollout_min_gap 0', () => {
    assert.equal(explains(cfg, 'feedback', old, old), true);
    assert.equal(explains({ ...cfg, rollout_min_gap: 0 }, 'judge', old, old), true);
  });

  it('leaves out tokens whose log-probs are not finite', () => {
    assert.equal(meanGap([-1, -Infinity, -3], [-0.5, -1, -1]), -1.25);
  });
});

describe("which judge's hints train the turn's own OPD sample (hint_min_gap)", () => {
  const old = [-0.5, -1.2, -0.1, -2.0];

  it('with null (the default, as the reference), every hint trains', () => {
    assert.equal(DEFAULT_TRAINING_CONFIG.hint_min_gap, null);
    assert.equal(droppedHintReason(DEFAULT_TRAINING_CONFIG, 'judge', [-0.4, -1.1, -0.1, -1.9], old), null);
  });

  it("with a gap, a judge's hint trains only when the hinted teacher pushes the answer down by that much", () => {
    const cfg = { ...DEFAULT_TRAINING_CONFIG, hint_min_gap: 0.05 };
    assert.equal(droppedHintReason(cfg, 'judge', [-0.5, -1.2, -0.1, -3.0], old), null, 'a gap of −0.25 nats per token');
    assert.match(
      droppedHintReason(cfg, 'judge', [-0.4, -1.1, -0.1, -1.9], old) ?? '',
      /\+0\.075 nats per token/,
      'the teacher likes the answer more',
    );
    assert.match(droppedHintReason(cfg, 'judge', [-0.5, -1.2, -0.1, -2.12], old) ?? '', /-0\.030 nats per token/, 'a gap of −0.03');
    assert.match(droppedHintReason(cfg, 'judge', [-Infinity], [-1]) ?? '', /no token could be compared/);
    assert.equal(droppedHintReason({ ...cfg, hint_min_gap: 0 }, 'judge', old, old), null, 'a gap of 0 with a threshold of 0');
  });

  it('a typed hint always trains', () => {
    assert.equal(droppedHintReason({ ...DEFAULT_TRAINING_CONFIG, hint_min_gap: 0.05 }, 'feedback', [0, 0, 0, 0], old), null);
  });

  it('makes the test rollout_min_gap makes: at the same threshold, a hint trains exactly when it is rolled out', () => {
    // Teacher log-probs giving mean gaps of −0.25, −0.05, −0.03, +0.075 nats per token, and none to compare.
    const teachers = [
      [-0.5, -1.2, -0.1, -3.0],
      [-0.5, -1.2, -0.1, -2.2],
      [-0.5, -1.2, -0.1, -2.12],
      [-0.4, -1.1, -0.1, -1.9],
      [NaN, NaN, NaN, NaN],
    ];
    for (const gap of [0.01, 0.05, 0.1]) {
      for (const source of ['judge', 'feedback'] as const) {
        for (const teacher of teachers) {
          const rolledOut = explains({ ...DEFAULT_TRAINING_CONFIG, rollout_min_gap: gap }, source, teacher, old);
          const trains = droppedHintReason({ ...DEFAULT_TRAINING_CONFIG, hint_min_gap: gap }, source, teacher, old) === null;
          assert.equal(trains, rolledOut, `${source} hint, threshold ${gap}, teacher ${teacher.join(', ')}`);
        }
      }
    }
  });
});
