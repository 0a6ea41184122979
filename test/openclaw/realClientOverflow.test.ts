/**
 * The published OpenClaw against ClawLoop (see openclawClient.ts): a message longer than the model
 * reads, in a fresh session, is refused before anything is recorded (OpenClaw has nothing to compact
 * and says "Context overflow" in words), and the session's next message is answered and learned from.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionDetail } from '../../main/protocol/sessions.js';
import { api } from '../helpers/testServer.js';
import { assertAnswered, openClawSkipReason, startOpenClawRig, TEST_WINDOW, type OpenClawRig } from './openclawClient.js';

describe('the published OpenClaw and a message too long for the model', { skip: openClawSkipReason() }, () => {
  let rig: OpenClawRig;
  before(async () => (rig = await startOpenClawRig()));
  after(() => rig?.close());

  it('is refused in words or compacted, and the session goes on', async () => {
    // About 28,000 tokens of the test model: over its 24,576-token window.
    const long = 'Please remember this list. ' + 'apple banana cherry '.repeat(1300);
    const reply = await rig.agent('oc-long', long);
    const said = reply.payloads.map((p) => p.text ?? '').join(' ');
    if (reply.payloads.some((p) => p.isError))
      assert.match(said, /context overflow|too large/i, `a refusal that says why: ${said.slice(0, 300)}`);

    assertAnswered(await rig.agent('oc-long', 'What is 1 plus 1?'), 'the message after the long one');
    const turns = (await api<SessionDetail>(rig.server, 'GET', '/api/sessions/oc-long')).body.turns;
    const seen = JSON.stringify(turns.map((x) => [x.type, x.messages.length, x.prompt_tokens]));
    console.log(`session oc-long, [type, messages, prompt tokens] of each turn: ${seen}`);
    const main = turns.filter((x) => x.type === 'main');
    assert.ok(
      JSON.stringify(main.at(-1)?.messages.at(-1)?.content ?? '').includes('What is 1 plus 1?'),
      `the next message is a main turn: ${seen}`,
    );
    for (const t of turns) assert.ok(t.prompt_tokens < TEST_WINDOW, `every recorded turn fits the window: ${seen}`);
  });
});
