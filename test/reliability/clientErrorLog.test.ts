import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestServer, type TestServer } from '../helpers/testServer.js';

/**
 * Issue 41 (second probe): a prompt too long for the context is a normal 400 to the client, yet it
 * logged "unhandled error … InferenceError" with a full stack trace, hiding real errors in the noise.
 */
describe('issue 41: client errors are logged as one line', () => {
  let t: TestServer;
  const lines: string[] = [];
  before(async () => (t = await startTestServer({ log: (l) => lines.push(l) })));
  after(() => t.close());

  // Digits are one token each: short enough in characters to pass the quick check, too long once tokenized.
  it('a prompt longer than the context is a 400 and one log line without a stack', async () => {
    const r = await postJson(`${t.url}/chat/completions`, {
      messages: [{ role: 'user', content: '1234567890'.repeat(40) }],
      max_tokens: 4,
    });
    assert.equal(r.status, 400);
    assert.match(((await r.json()) as { error: { message: string } }).error.message, /maximum context length/);
    const logged = lines.join('\n');
    assert.doesNotMatch(logged, /unhandled error/);
    assert.doesNotMatch(logged, /^\s+at /m, 'no stack trace');
    const mine = lines.filter((l) => l.includes('/v1/chat/completions'));
    assert.equal(mine.length, 1, logged);
    assert.match(mine[0], /400/);
  });
});
