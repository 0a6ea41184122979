import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compactionPromptBudget, cutLongestMessage, cutMarker, cutMessage } from '../../main/server/routes/chat/promptFit.js';
import { longContextModel, startTestServer, type TestServer } from '../helpers/testServer.js';

describe('fitting OpenClaw calls into the window', () => {
  it('cuts the middle of the longest message and says how much', () => {
    const req = {
      messages: [
        { role: 'system' as const, content: 'sum up' },
        { role: 'user' as const, content: 'a'.repeat(50) + 'b'.repeat(50) },
      ],
    };
    const cut = cutLongestMessage(req, 60);
    assert.equal(cut.messages[0].content, 'sum up');
    assert.equal(cut.messages[1].content, 'a'.repeat(20) + cutMarker(60) + 'b'.repeat(20));
    assert.equal(req.messages[1].content.length, 100, 'the request itself is not changed');
    assert.equal(compactionPromptBudget(8192, undefined), 6144, 'a quarter of the window is kept for the summary');
    assert.equal(compactionPromptBudget(8192, 500), 7692);
    assert.equal(cutMessage(req, 0, 2).messages[0].content, 'su' + cutMarker(2) + 'up', 'any message can be the one cut');
  });

  describe('against a real server', () => {
    let t: TestServer;
    before(async () => (t = await startTestServer({ modelPath: longContextModel('qwen3-qknorm', 2048) })));
    after(() => t.close());
    const post = (system: string) =>
      fetch(`${t.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', session_id: 'c1:1', 'x-session-affinity': 'c1:1' },
        body: JSON.stringify({
          messages: [
            { role: 'system', content: system },
            {
              role: 'user',
              content: `<conversation>${'apple banana cherry '.repeat(400)}</conversation>\nSummarize the conversation above.`,
            },
          ],
          max_completion_tokens: 64,
        }),
      });

    it('answers a compaction whose conversation overflows, from a cut conversation, as a side turn', async () => {
      const res = await post('You are a context summarization assistant. Your task is to read a conversation…');
      assert.equal(res.status, 200, await res.clone().text());
      const body = (await res.json()) as { id: string; usage: { prompt_tokens: number } };
      assert.ok(body.usage.prompt_tokens <= 2048 - 64);
      const turn = t.store.getTurn(body.id)!;
      assert.equal(turn.type, 'side');
      assert.equal(turn.sessionId, 'c1');
      assert.match(turn.promptText, /characters cut by ClawLoop/);
    });

    it('still refuses any other request that overflows', async () => {
      const res = await post('You are a helpful assistant.');
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'context_length_exceeded');
    });

    const AGENT = 'You are a personal assistant running inside OpenClaw.\nTools: none.';
    const agentTurn = (messages: Array<{ role: string; content: string }>) =>
      fetch(`${t.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', session_id: 'c2:0', 'x-session-affinity': 'c2:0' },
        body: JSON.stringify({ messages: [{ role: 'system', content: AGENT }, ...messages], max_completion_tokens: 64 }),
      });
    const long = 'Please remember this list. ' + 'apple banana cherry '.repeat(400);

    it('refuses an agent turn whose newest message is too long, so that the person is told', async () => {
      const res = await agentTurn([{ role: 'user', content: long }]);
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'context_length_exceeded');
    });

    it('cuts a refused message OpenClaw kept in the history, so that the session goes on', async () => {
      const res = await agentTurn([
        { role: 'user', content: long },
        { role: 'user', content: 'What is 1 plus 1?' },
      ]);
      assert.equal(res.status, 200, await res.clone().text());
      const body = (await res.json()) as { id: string; usage: { prompt_tokens: number } };
      assert.ok(body.usage.prompt_tokens <= 2048 - 64);
      const turn = t.store.getTurn(body.id)!;
      assert.equal(turn.type, 'main');
      assert.match(turn.promptText, /characters cut by ClawLoop/);
      assert.match(turn.promptText, /What is 1 plus 1\?/, 'the newest message is whole');
    });

    it('still refuses an agent turn whose long history OpenClaw can compact', async () => {
      const exchanges = Array.from({ length: 12 }, (_, i) => [
        { role: 'user', content: `Question ${i}: ${'apple banana cherry '.repeat(10)}` },
        { role: 'assistant', content: `Answer ${i}: ${'apple banana cherry '.repeat(10)}` },
      ]).flat();
      const res = await agentTurn([...exchanges, { role: 'user', content: 'And now?' }]);
      assert.equal(res.status, 400, 'no single message is too long: OpenClaw compacts on the 400');
    });
  });
});
