/**
 * The published OpenClaw against ClawLoop (see openclawClient.ts): agent turns are answered and
 * stored as main turns of one session with their next states; a rating trains a step whose adapter
 * answers the next turn.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionDetail, TurnView } from '../../main/protocol/sessions.js';
import { api, waitFor } from '../helpers/testServer.js';
import { assertAnswered, openClawSkipReason, startOpenClawRig, type OpenClawRig } from './openclawClient.js';

describe('the published OpenClaw learns through ClawLoop', { skip: openClawSkipReason() }, () => {
  let rig: OpenClawRig;
  const session = 'oc-ci';
  const turnsOf = async () => (await api<SessionDetail>(rig.server, 'GET', `/api/sessions/${session}`)).body.turns;
  before(async () => (rig = await startOpenClawRig({ method: 'rl', batch_size: 1, max_staleness: null })));
  after(() => rig?.close());

  it('turns of one session are answered and stored as main turns, each the next state of the one before', async () => {
    const messages = ['Hello! What is 4 plus 4?', 'And 6 plus 7?', 'How many minutes are in 3 hours?'];
    for (const m of messages) assertAnswered(await rig.agent(session, m), `"${m}"`);
    const main: TurnView[] = (await turnsOf()).filter((x) => x.type === 'main');
    assert.ok(main.length >= messages.length, `${main.length} main turns in session ${session}`);
    const states = main.map((x) => x.next_state?.text);
    for (const m of messages.slice(1))
      assert.ok(states.includes(m), `"${m}" is the next state of the turn before it, without OpenClaw's envelope`);
    const all = (await api<{ data: TurnView[] }>(rig.server, 'GET', '/api/turns?limit=500')).body.data;
    for (const x of all.filter((x) => x.type === 'main')) assert.equal(x.session_id, session, 'every main turn is of the one conversation');
  });

  it('a rating trains a step, and the next turn is answered by its adapter', async () => {
    // The newest turn: nothing came after it yet, so nothing has trained on it.
    const newest = (await turnsOf()).filter((x) => x.type === 'main').at(-1)!;
    const rated = await api(rig.server, 'POST', '/v1/feedback', { completion_id: newest.id, rating: 'up' });
    assert.equal(rated.status, 200, JSON.stringify(rated.body));
    const live = await waitFor(
      async () => {
        const v = (await api<{ adapter_version: number }>(rig.server, 'GET', '/api/training/status')).body.adapter_version;
        return v >= 1 ? v : null;
      },
      'an adapter trained from the rating, live',
      300_000,
    );
    assertAnswered(await rig.agent(session, 'One more: what is 2 plus 3?'), 'the turn after the step');
    const last = (await turnsOf()).filter((x) => x.type === 'main').at(-1)!;
    // The judged earlier turns may train further steps meanwhile: a newer adapter answers then.
    assert.ok(last.adapter_version >= live, `answered by adapter v${last.adapter_version}, v${live} or newer`);
    assert.equal(last.next_state, null, 'the newest turn waits for what comes next');
  });
});
