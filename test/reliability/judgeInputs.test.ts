import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TurnView } from '../../main/protocol/sessions.js';
import { api, chat, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

type Err = { error: { message: string; code: string; param: string | null } };

/** Issue 41, finding 1: a hint the teacher cannot read never stops learning. */
describe('issue 41: judge inputs the model cannot read', () => {
  let t: TestServer;
  // The fixture model reads 256 tokens: this hint alone is far more (the probe's 3,990 characters).
  const longHint = 'Answer in one short sentence and never use bold text. '.repeat(74).slice(0, 3990);
  before(async () => (t = await startTestServer({ train: { method: 'opd', batch_size: 64 } })));
  after(() => t.close());

  it('a hint longer than the turn leaves room for is a 400 that says the limit', async () => {
    const a = await chat(t, 'what is two plus two', { session: 'limit', type: 'main' });
    const r = await api<Err>(t, 'POST', '/v1/feedback', { completion_id: a.id, hint: longHint });
    assert.equal(r.status, 400);
    assert.deepEqual([r.body.error.code, r.body.error.param], ['hint_too_long', 'hint']);
    const max = Number(/at most (\d+) bytes/.exec(r.body.error.message)?.[1]);
    assert.ok(max > 0 && max < 256, r.body.error.message);
    assert.match(r.body.error.message, /context of 256 tokens/);
    assert.equal(t.learn.feedback(a.id), null, 'nothing was stored');
    const ok = await api(t, 'POST', '/v1/feedback', { completion_id: a.id, hint: 'x'.repeat(max) });
    assert.equal(ok.status, 200, 'a hint of exactly the limit is taken');
  });

  it('a stored hint too long for the teacher is dropped with a reason and an error event; later turns still train', async () => {
    await api(t, 'POST', '/api/training/pause');
    const a = await chat(t, 'tell me about cats', { session: 'long-hint', type: 'main' });
    // Stored directly, as a hint saved before the limit existed would be (the API now refuses it).
    t.learn.setFeedback(a.id, null, longHint, Date.now());
    const b = await chat(t, 'tell me about dogs', { session: 'long-hint', type: 'main' });
    assert.equal((await api(t, 'POST', '/v1/feedback', { completion_id: b.id, hint: 'be brief' })).status, 200);
    await api(t, 'POST', '/api/training/resume');
    const receiptA = await waitFor(async () => {
      const v = (await api<TurnView>(t, 'GET', `/api/turns/${a.id}`)).body;
      return v.receipt.stage === 'queued' ? null : v.receipt;
    }, 'the long-hint turn settled');
    assert.equal(receiptA.stage, 'not_trained');
    assert.match(receiptA.reason ?? '', /the hint \(39\d\d characters\) makes the teacher's context \d+ tokens .* at most 256/);
    await waitFor(() => t.learn.samplesOfTurn(b.id).length > 0, 'the next turn was judged and trained on');
    const errors = t.db.prepare("SELECT data FROM events WHERE name = 'error'").all() as Array<{ data: string }>;
    assert.ok(
      errors.some((e) => e.data.includes(a.id) && /at most 256/.test(e.data)),
      'an error event names the turn and the reason',
    );
    const status = (await api<{ error?: string }>(t, 'GET', '/api/training/status')).body;
    assert.doesNotMatch(status.error ?? '', /judging turn/, 'the trainer is not stuck retrying it');
  });
});
