import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../../main/store/database.js';
import { LearnStore, type NewSample } from '../../main/store/learnStore.js';
import { ratedTurn } from '../helpers/ratedTurn.js';

const opd = (over: Partial<NewSample>): NewSample => ({
  kind: 'opd',
  reward: null,
  rewardSource: null,
  hint: 'Be brief.',
  hintSource: 'judge',
  teacherLogprobs: [-0.5, -0.75],
  teacherTopIds: null,
  teacherTopLogprobs: null,
  topK: null,
  adapterVersion: 0,
  ...over,
});

describe('sample queue: teacher rollouts', () => {
  it("a sample with a response of its own trains on it: the batch's turn carries its tokens and log-probs; the turn's own stay", () => {
    const db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-samples-')), 'c.db'));
    const store = new LearnStore(db);
    const id = ratedTurn(store, -0.25, 'down');
    const ready = store.nextReadyTurn()!;
    const turn = store.turns.getTurn(id)!;
    const rollout = { ids: [7, 8, 9, 300000], logprobs: [-2.5, -0.125, -3, -0.5], writer: 'teacher' as const };
    const rolloutSample = opd({ teacherLogprobs: [-0.25, -0.125, -0.5, -0.25], adapterVersion: 0, response: rollout });
    const again = { ids: [11, 12], logprobs: [-0.5, -1.5], writer: 'policy' as const };
    const againSample = opd({ teacherLogprobs: [-1, -2], adapterVersion: 0, response: again });
    assert.ok(store.commitTurn(ready.turn.id, ready.epoch, [opd({}), rolloutSample, againSample], 4));

    const [own, taught, other] = store.samplesOfTurn(id);
    assert.equal(own.response, null);
    assert.deepEqual(taught.response, rollout);
    assert.deepEqual(other.response, again, "the policy's own second answer keeps who wrote it");

    const batch = store.takeBatch(3, 0, null);
    assert.deepEqual(
      batch.map((b) => b.turn.responseIds),
      [turn.responseIds, rollout.ids, again.ids],
    );
    assert.deepEqual(batch[1].turn.responseLogprobs, rollout.logprobs);
    assert.deepEqual(batch[1].turn.promptIds, turn.promptIds, 'the prompt is the turn’s (without the hint)');
    assert.equal(batch[1].sample.teacherLogprobs!.length, batch[1].turn.responseIds.length);
    assert.deepEqual(store.turns.getTurn(id)!.responseIds, turn.responseIds);
    db.close();
  });

  it("a database from before policy rollouts opens with its rollouts marked as the teacher's", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-samples-')), 'c.db');
    const db = openDatabase(file);
    const store = new LearnStore(db);
    const id = ratedTurn(store, -0.25, 'down');
    const ready = store.nextReadyTurn()!;
    const rollout = { ids: [7, 8], logprobs: [-2.5, -0.125], writer: 'teacher' as const };
    assert.ok(store.commitTurn(ready.turn.id, ready.epoch, [opd({}), opd({ response: rollout })], 4));
    db.close();
    // Back to schema 6 as an earlier ClawLoop left it: no writer column.
    const old = new Database(file);
    old.exec('ALTER TABLE samples DROP COLUMN response_writer');
    old.exec('ALTER TABLE feedback DROP COLUMN judge_hint_rejected'); // migrations 8 and 9 came later
    old.exec('ALTER TABLE checkpoints DROP COLUMN name');
    old.exec('ALTER TABLE checkpoints DROP COLUMN note');
    old.pragma('user_version = 6');
    old.close();

    const reopened = openDatabase(file);
    const [own, taught] = new LearnStore(reopened).samplesOfTurn(id);
    assert.equal(own.response, null);
    assert.deepEqual(taught.response, rollout);
    reopened.close();
  });
});
