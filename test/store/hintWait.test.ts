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
    assert.deepEqual([ready?.turn.id, ready?.feedback?.rating, ready?.feedback?.hint], [id, 'up', 'Answer in one sentence.'], 'rating and hint, one piece of feedback');
    db.close();
  });
});
