import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Receipt, TurnView } from '../../main/protocol/sessions.js';
import { receiptOf } from '../../main/server/routes/turnView.js';
import type { StoredSample } from '../../main/store/learnStore.js';
import type { StoredTurn } from '../../main/store/turnStore.js';
import { api, chat, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

/** What the app shows under an answer: queued → judged → trained in step N → live in vK, and back to "trained" after a rollback. */
describe('a turn’s receipt follows it through the learning loop, and a rollback', () => {
  let t: TestServer;
  const receipt = async (id: string) => (await api<TurnView>(t, 'GET', `/api/turns/${id}`)).body.receipt;
  const stepsDone = async (n: number) =>
    waitFor(async () => (await api<{ step: number; state: string }>(t, 'GET', '/api/training/status')).body.step >= n, `step ${n}`);

  before(async () => (t = await startTestServer({ train: { method: 'rl', batch_size: 1, max_staleness: null } })));
  after(() => t.close());

  it('side turns and turns without a session say why they never train; a turn with nothing after it waits', async () => {
    const side = await chat(t, 'title this chat', { session: 'r', type: 'side' });
    assert.equal((await receipt(side.id)).stage, 'not_trained');
    assert.match((await receipt(side.id)).reason!, /side turns/);
    const loose = await chat(t, 'no session', { type: 'main' });
    assert.match((await receipt(loose.id)).reason!, /no session id/);
    await api(t, 'POST', '/api/training/pause');
    const waiting = await chat(t, 'a question', { session: 'r', type: 'main' });
    assert.equal((await receipt(waiting.id)).stage, 'none');
    await api(t, 'POST', '/v1/feedback', { completion_id: waiting.id, rating: 'up' });
    assert.equal((await receipt(waiting.id)).stage, 'queued');
  });

  it('goes judged → live; after a rollback to the base model it is trained, not live; back again it is live', async () => {
    await api(t, 'POST', '/api/training/resume');
    const turn = (await api<{ data: TurnView[] }>(t, 'GET', '/api/turns?has_feedback=true')).body.data[0];
    await stepsDone(1);
    const live: Receipt = await waitFor(async () => {
      const r = await receipt(turn.id);
      return r.stage === 'live' ? r : null;
    }, 'the live receipt');
    assert.deepEqual([live.score, live.step, live.checkpoint_id, live.version], [1, 1, 'step-000001', 1]);
    const back = await api<{ adapter_version: number }>(t, 'POST', '/api/checkpoints/base/rollback');
    const rolled = await receipt(turn.id);
    assert.deepEqual([rolled.stage, rolled.step, rolled.version], ['trained', 1, null]);
    assert.match(rolled.reason!, /^a rollback made an earlier version live, so what this step learned is not in the live adapter$/);
    const again = await api<{ adapter_version: number }>(t, 'POST', '/api/checkpoints/step-000001/rollback');
    assert.ok(again.body.adapter_version > back.body.adapter_version);
    assert.deepEqual([(await receipt(turn.id)).stage, (await receipt(turn.id)).version], ['live', again.body.adapter_version]);
  });

  it('a later step trained from it keeps it live (what the adapter learned is inherited)', async () => {
    const next = await chat(t, 'another one', { session: 'r2', type: 'main' });
    await api(t, 'POST', '/v1/feedback', { completion_id: next.id, rating: 'down' });
    await stepsDone(2);
    const first = (await api<{ data: TurnView[] }>(t, 'GET', '/api/turns?trained=true')).body.data.find((x) => x.receipt.step === 1)!;
    await waitFor(async () => (await receipt(next.id)).stage === 'live', 'the second turn live');
    const kept = await receipt(first.id);
    assert.equal(kept.stage, 'live');
    assert.ok(kept.version! > kept.first_version!, `live now in v${kept.version}, first in v${kept.first_version}`);
    assert.equal(kept.first_version, 1, 'the first version that served step 1 stays v1 (after a rollback and back, and a later step)');
  });
});

describe('a receipt of a turn with several samples (teacher rollouts)', () => {
  it('follows the sample whose step is live when its other sample was held back', () => {
    const turn = { type: 'main', sessionId: 's', finishReason: 'stop', nextState: null, closed: false } as unknown as StoredTurn;
    const sample = (step: number) =>
      ({ status: 'trained', step, reward: null, hint: 'Be brief.', dropReason: null }) as unknown as StoredSample;
    const outcome = (step: number) => ({
      checkpointId: `step-00000${step}`,
      live: step === 2,
      liveVersion: 2,
      firstVersion: step === 2 ? 2 : null,
      heldBack: step === 2 ? null : 'held back by the competence gate',
      checking: false,
    });
    const facts = {
      turn,
      feedback: null,
      judgements: [],
      samples: [sample(1), sample(2)],
      learnNote: null,
      learnState: 'done' as const,
      hintWaitMs: 0,
      now: 0,
    };
    const r = receiptOf(facts, outcome);
    assert.deepEqual([r.stage, r.step, r.version], ['live', 2, 2]);
    const heldOnly = receiptOf({ ...facts, samples: [sample(1)] }, outcome);
    assert.deepEqual([heldOnly.stage, heldOnly.reason], ['trained', 'held back by the competence gate']);
  });
});

describe('a rating waits for its hint (feedback_wait_s), and the receipt says until when', () => {
  const turn = { type: 'main', sessionId: 's', finishReason: 'stop', nextState: null, closed: false } as unknown as StoredTurn;
  const base = { turn, judgements: [], samples: [], learnNote: null, learnState: 'new' as const, hintWaitMs: 20_000, now: 1_010_000 };
  const rated = { rating: 'up' as const, hint: null, judgeHintRejected: false, updatedAt: 1_000_000 };

  it('a fresh rating without a hint: queued, a hint joins it until the rating time plus the wait', () => {
    const r = receiptOf({ ...base, feedback: rated }, () => assert.fail('not trained'));
    assert.deepEqual([r.stage, r.hint_until, r.feedback_open], ['queued', 1_020_000, true]);
  });

  it('no wait once a hint came with it, once the wait is over, or with feedback_wait_s 0', () => {
    const none = () => assert.fail('not trained');
    assert.equal(receiptOf({ ...base, feedback: { ...rated, hint: 'shorter' } }, none).hint_until, null);
    assert.equal(receiptOf({ ...base, feedback: rated, now: 1_020_001 }, none).hint_until, null);
    assert.equal(receiptOf({ ...base, feedback: rated, hintWaitMs: 0 }, none).hint_until, null);
  });

  it('feedback is closed once a step took a sample of the turn', () => {
    const sample = (status: string) => ({ status, step: null, reward: 1, hint: null, dropReason: null }) as unknown as StoredSample;
    const outcome = () => ({ checkpointId: null, live: false, liveVersion: 0, firstVersion: null, heldBack: null, checking: false });
    const judged = { ...base, feedback: rated, learnState: 'done' as const };
    assert.equal(receiptOf({ ...judged, samples: [sample('queued')] }, outcome).feedback_open, true);
    assert.equal(receiptOf({ ...judged, samples: [sample('training')] }, outcome).feedback_open, false);
  });
});
