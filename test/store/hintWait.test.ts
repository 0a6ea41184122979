import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../main/store/database.js';
import { LearnStore } from '../../main/store/learnStore.js';
import { ratedTurn } from '../helpers/ratedTurn.js';

describe('the trainer waits feedback_wait_s after a rating for its hint', () => {
  it('a rating without a hint is ready only after the wait; a hint ends the wait at once', () => {
    const db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-hintwait-')), 'c.db'));
    const store = new LearnStore(db);
    const id = ratedTurn(store, -0.25, 'up');
    const ratedAt = store.feedback(id)!.updatedAt;
    const wait = { now: ratedAt + 5_000, waitMs: 20_000 };
    assert.equal(store.nextReadyTurn(wait), null, 'rated 5 s ago: still waiting for a hint');
    assert.equal(store.pendingTurnCount(), 1, 'it is counted as pending meanwhile');
    assert.equal(store.nextReadyTurn({ now: ratedAt + 20_001, waitMs: 20_000 })?.turn.id, id, 'the wait is over');
    assert.equal(store.nextReadyTurn({ now: ratedAt, waitMs: 0 })?.turn.id, id, 'feedback_wait_s 0: at once');
    assert.equal(store.nextReadyTurn()?.turn.id, id, 'no wait given: at once');

    store.setFeedback(id, 'up', 'Answer in one sentence.', ratedAt + 5_000);
    const ready = store.nextReadyTurn({ now: ratedAt + 6_000, waitMs: 20_000 });
    assert.deepEqual(
      [ready?.turn.id, ready?.feedback?.rating, ready?.feedback?.hint],
      [id, 'up', 'Answer in one sentence.'],
      'rating and hint, one piece of feedback',
    );
    db.close();
  });
});

describe("a judge's hint waits feedback_wait_s for the user's review before a step may take it", () => {
  it('a queued sample trained with a judge hint is left out of the batch until the wait is over; others are not', () => {
    const db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-review-')), 'c.db'));
    const store = new LearnStore(db);
    const sample = (hintSource: 'judge' | 'feedback' | null) => ({
      kind: hintSource ? ('both' as const) : ('rl' as const),
      reward: 1,
      rewardSource: 'feedback' as const,
      hint: hintSource ? 'Be brief.' : null,
      hintSource,
      teacherLogprobs: hintSource ? [-0.5, -0.75] : null,
      teacherTopIds: null,
      teacherTopLogprobs: null,
      topK: null,
      adapterVersion: 0,
    });
    const ids = [ratedTurn(store, -0.25, 'up'), ratedTurn(store, -0.25, 'up'), ratedTurn(store, -0.25, 'up')];
    const at = 1_000_000;
    [sample('judge'), sample('feedback'), sample(null)].forEach((s, i) => {
      const ready = store.nextReadyTurn()!;
      assert.equal(ready.turn.id, ids[i]);
      assert.ok(store.commitTurn(ids[i], ready.epoch, [s], at));
    });
    assert.equal(store.queuedCount(), 3, 'all three are queued (the status counts them)');
    assert.equal(store.readySampleCount(at - 1), 2, 'the judge-hinted one waits');
    assert.deepEqual(
      store.takeBatch(2, 0, null, at - 1).map((b) => b.turn.id),
      [ids[1], ids[2]],
    );
    assert.equal(store.readySampleCount(at), 1, 'the wait is over');
    db.close();
  });

  it("rejecting the judge's hint is kept with the feedback (even without a rating) and puts the turn back to be judged", () => {
    const db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-reject-')), 'c.db'));
    const store = new LearnStore(db);
    const id = ratedTurn(store, -0.25, 'up');
    const ready = store.nextReadyTurn()!;
    assert.ok(store.commitTurn(id, ready.epoch, [], 1));
    store.setFeedback(id, null, null, 2, true);
    assert.deepEqual(store.feedback(id), { rating: null, hint: null, judgeHintRejected: true, updatedAt: 2 });
    const again = store.nextReadyTurn();
    assert.equal(again?.turn.id, id);
    assert.equal(again?.feedback?.judgeHintRejected, true);
    store.setFeedback(id, null, null, 3, false);
    assert.equal(store.feedback(id), null, 'nothing left: the feedback is cleared');
    db.close();
  });
});
