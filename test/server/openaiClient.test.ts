import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { longContextModel, startTestServer, type TestServer } from '../helpers/testServer.js';

describe('OpenAI client against a real server and model', () => {
  let t: TestServer;
  let client: OpenAI;
  before(async () => {
    t = await startTestServer({ modelPath: longContextModel('qwen3-qknorm', 2048), options: { servedModelName: 'qwen3-qknorm' } });
    client = new OpenAI({ baseURL: t.url, apiKey: 'any', maxRetries: 0 });
  });
  after(() => t.close());

  it('lists the served model', async () => {
    const models = await client.models.list();
    assert.deepEqual(
      models.data.map((m) => m.id),
      ['qwen3-qknorm'],
    );
  });

  it('non-streaming: a chat.completion whose id is the stored turn, with usage and the adapter header', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'qwen3-qknorm', messages: [{ role: 'user', content: 'hello' }], max_tokens: 6, seed: 1 })
      .withResponse();
    assert.match(data.id, /^chatcmpl-[0-9a-f]{24}$/);
    assert.equal(response.headers.get('x-clawloop-adapter-version'), '0');
    assert.equal(data.choices[0].finish_reason, 'length');
    assert.equal(data.usage?.completion_tokens, 6);
    const turn = t.store.getTurn(data.id)!;
    assert.ok(turn, 'the turn is stored under the completion id');
    assert.equal(turn.responseIds.length, 6);
    assert.equal(turn.responseText, data.choices[0].message.content);
    assert.equal(turn.promptIds.length, data.usage?.prompt_tokens);
    assert.equal(turn.type, 'side');
    assert.equal(turn.sessionId, null);
  });

  it('streaming: deltas add up to the stored answer; finish reason and usage arrive last', async () => {
    const stream = await client.chat.completions.create({
      model: 'qwen3-qknorm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hello world' },
      ],
      max_completion_tokens: 12,
      seed: 3,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let id = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      id = chunk.id;
      if (chunk.choices[0]?.delta?.content) text += chunk.choices[0].delta.content;
      if (chunk.choices[0]?.finish_reason) finish = chunk.choices[0].finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(finish, 'length');
    assert.equal(usage?.completion_tokens, 12);
    assert.equal(t.store.getTurn(id)!.responseText, text);
  });

  it('the same seed gives the same answer over HTTP', async () => {
    const ask = () =>
      client.chat.completions.create({
        model: 'qwen3-qknorm',
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: 10,
        seed: 42,
        temperature: 1,
      });
    const [a, b] = [await ask(), await ask()];
    assert.equal(a.choices[0].message.content, b.choices[0].message.content);
  });

  it("logprobs in OpenAI's shape equal the stored log-probs of the sampled tokens", async () => {
    const r = await client.chat.completions.create({
      model: 'qwen3-qknorm',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 5,
      logprobs: true,
      top_logprobs: 3,
      seed: 5,
    });
    const lp = r.choices[0].logprobs!.content!;
    assert.equal(lp.length, 5);
    const stored = t.store.getTurn(r.id)!.responseLogprobs;
    lp.forEach((e, i) => {
      assert.ok(Math.abs(e.logprob - stored[i]) < 1e-6);
      assert.equal(e.top_logprobs.length, 3);
      assert.ok(e.top_logprobs[0].logprob >= e.top_logprobs[2].logprob);
    });
  });

  it('tools go into the prompt; a model that does not call them answers as text', async () => {
    const r = await client.chat.completions.create({
      model: 'qwen3-qknorm',
      messages: [{ role: 'user', content: 'read the file' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'read_file',
            description: 'Read a file',
            parameters: { type: 'object', properties: { path: { type: 'string' } } },
          },
        },
      ],
      max_tokens: 4,
    });
    assert.ok(t.store.getTurn(r.id)!.promptText.includes('"name": "read_file"'));
    assert.ok(r.choices[0].finish_reason === 'length' || r.choices[0].finish_reason === 'stop');
  });

  it('a prompt longer than the context is a 400 "maximum context length" error', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'qwen3-qknorm', messages: [{ role: 'user', content: 'word '.repeat(3000) }] }),
      (err: InstanceType<typeof OpenAI.APIError>) => {
        assert.equal(err.status, 400);
        assert.match(err.message, /maximum context length is 2048 tokens/);
        return true;
      },
    );
  });

  it('a streamed prompt that does not fit is a plain 400 before any stream starts, and nothing is recorded', async () => {
    const turns = t.store.turnCount();
    const sessions = t.store.sessions().length;
    // Fewer characters than the context times the longest token, so only the exact count refuses it.
    const content = 'word '.repeat(3000);
    const res = await fetch(`${t.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-id': 'overflow', 'x-turn-type': 'main' },
      body: JSON.stringify({ model: 'qwen3-qknorm', stream: true, messages: [{ role: 'user', content }] }),
    });
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(res.headers.get('x-clawloop-completion-id'), null, 'no completion id for a request that was not recorded');
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'context_length_exceeded');
    assert.match(body.error.message, /^This model's maximum context length is 2048 tokens\. However, your messages resulted in \d+ tokens/);
    assert.equal(t.store.turnCount(), turns);
    assert.equal(t.store.sessions().length, sessions, 'the session is not opened either');
  });

  it("usage counts the prompt tokens the prefix cache supplied (OpenClaw's cacheRead)", async () => {
    const messages = [
      { role: 'system' as const, content: 'You are an agent. '.repeat(40) },
      { role: 'user' as const, content: 'hello there' },
    ];
    const first = await client.chat.completions.create({ model: 'qwen3-qknorm', messages, max_tokens: 2, seed: 1 });
    const again = await client.chat.completions.create({ model: 'qwen3-qknorm', messages, max_tokens: 2, seed: 1 });
    const cached = again.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    assert.ok(
      cached > 0 && cached < again.usage!.prompt_tokens,
      `the second request reused ${cached} of ${again.usage!.prompt_tokens} tokens`,
    );
    assert.ok((first.usage?.prompt_tokens_details?.cached_tokens ?? 0) < cached);
  });

  it('max_tokens larger than the remaining context is clamped, not refused', async () => {
    const r = await client.chat.completions.create({
      model: 'qwen3-qknorm',
      messages: [{ role: 'user', content: '§'.repeat(950) }],
      max_tokens: 100000,
      temperature: 1,
      seed: 9,
    });
    const turn = t.store.getTurn(r.id)!;
    assert.ok(turn.promptIds.length > 1800, `a prompt that leaves little room (${turn.promptIds.length} tokens)`);
    assert.ok(turn.promptIds.length + turn.responseIds.length <= 2048);
    assert.equal(turn.params.max_tokens, 2048 - turn.promptIds.length);
  });
});
