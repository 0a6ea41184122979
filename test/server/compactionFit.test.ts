import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compactionPromptBudget, cutLongestMessage, cutMarker } from '../../main/server/routes/chat/compactionFit.js';
import { longContextModel, startTestServer, type TestServer } from '../helpers/testServer.js';

describe('fitting an OpenClaw compaction into the window', () => {
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
  });
});
