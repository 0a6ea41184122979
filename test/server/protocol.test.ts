import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { ChatCompletionChunk } from '../../main/protocol/openai.js';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { postJson, readSse, startTestServer, type TestServer } from '../helpers/testServer.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

const CALLS = [
  { kind: 'content' as const, text: 'Adding it now.' },
  { kind: 'toolCall' as const, call: { name: 'edit', arguments: '{"path":"todo.md","newText":"x"}' } },
  { kind: 'toolCall' as const, call: { name: 'read', arguments: '{"path":"todo.md"}' } },
];

describe('streaming protocol (scripted engine)', () => {
  it('streams tool calls one after another: alphanumeric id and name first, then arguments; finish tool_calls, usage, [DONE]', async () => {
    t = await startTestServer({ engine: new FakeEngine([{ events: CALLS }]) });
    const res = await postJson(`${t.url}/chat/completions`, {
      model: 'fake-model',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
      stream_options: { include_usage: true },
      tools: [],
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
    const { events, done } = await readSse(res);
    assert.ok(done, 'ends with data: [DONE]');
    const chunks = events as ChatCompletionChunk[];
    assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
    const deltas = chunks.filter((c) => c.choices.length).map((c) => c.choices[0].delta);
    const toolDeltas = deltas.filter((d) => d.tool_calls).map((d) => d.tool_calls![0]);
    assert.equal(toolDeltas.length, 4);
    assert.match(toolDeltas[0].id!, /^call[0-9a-f]{24}$/);
    assert.deepEqual([toolDeltas[0].index, toolDeltas[0].function.name, toolDeltas[0].function.arguments], [0, 'edit', '']);
    assert.deepEqual(
      [toolDeltas[1].index, toolDeltas[1].id, toolDeltas[1].function.arguments],
      [0, undefined, '{"path":"todo.md","newText":"x"}'],
    );
    assert.deepEqual([toolDeltas[2].index, toolDeltas[2].function.name], [1, 'read']);
    assert.notEqual(toolDeltas[2].id, toolDeltas[0].id);
    const last = chunks[chunks.length - 1];
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage!.completion_tokens, 3);
    assert.equal(chunks[chunks.length - 2].choices[0].finish_reason, 'tool_calls');
    const stored = t.store.getTurn(chunks[0].id)!;
    assert.deepEqual(
      stored.toolCalls!.map((c) => [c.id, c.name]),
      [
        [toolDeltas[0].id, 'edit'],
        [toolDeltas[2].id, 'read'],
      ],
    );
  });

  it('the OpenAI SDK assembles the streamed and the non-streamed tool calls', async () => {
    t = await startTestServer({ engine: new FakeEngine([{ events: CALLS }, { events: CALLS }]) });
    const client = new OpenAI({ baseURL: t.url, apiKey: 'x', maxRetries: 0 });
    const full = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(full.choices[0].finish_reason, 'tool_calls');
    assert.equal(full.choices[0].message.content, 'Adding it now.');
    assert.deepEqual(
      full.choices[0].message.tool_calls!.map((c) => c.type === 'function' && [c.function.name, JSON.parse(c.function.arguments)]),
      [
        ['edit', { path: 'todo.md', newText: 'x' }],
        ['read', { path: 'todo.md' }],
      ],
    );
    const stream = client.chat.completions.stream({ model: 'fake-model', messages: [{ role: 'user', content: 'x' }] });
    const final = await stream.finalChatCompletion();
    assert.deepEqual(
      final.choices[0].message.tool_calls!.map((c) => c.type === 'function' && c.function.name),
      ['edit', 'read'],
    );
  });

  it('reasoning streams as reasoning_content, apart from the answer', async () => {
    t = await startTestServer({
      engine: new FakeEngine([
        {
          events: [
            { kind: 'reasoning', text: 'Think.' },
            { kind: 'content', text: 'Answer.' },
          ],
        },
        {
          events: [
            { kind: 'reasoning', text: 'Hmm.' },
            { kind: 'content', text: 'Yes.' },
          ],
        },
      ]),
    });
    const { events } = await readSse(
      await postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content: 'x' }], stream: true }),
    );
    const deltas = (events as ChatCompletionChunk[]).filter((c) => c.choices.length).map((c) => c.choices[0].delta);
    assert.ok(deltas.some((d) => d.reasoning_content === 'Think.' && d.content === undefined));
    assert.ok(deltas.some((d) => d.content === 'Answer.'));
    const r = (await (await postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content: 'x' }] })).json()) as {
      choices: Array<{ message: { content: string; reasoning_content: string } }>;
    };
    assert.deepEqual([r.choices[0].message.reasoning_content, r.choices[0].message.content], ['Hmm.', 'Yes.']);
  });

  // How soon the headers come is a figure for npm run bench:serve ("response headers"); this checks
  // the order of things. The engine is held before its first token until the test lets it go, so a
  // server that waited for generation before answering, or sent no keep-alives, never gets there
  // (the timeout is only a guard against hanging).
  it('sends SSE headers before generation starts, and keep-alive comments while it waits', { timeout: 20_000 }, async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const engine = new FakeEngine([{ startGate: gate, events: [{ kind: 'content', text: 'late' }] }]);
    t = await startTestServer({ engine, options: { keepAliveMs: 20 } });
    const res = await postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content: 'x' }], stream: true });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(engine.started, 0, 'the headers arrived while the engine had not started');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let waiting = '';
    while ((waiting.match(/^:/gm) ?? []).length < 3) waiting += decoder.decode((await reader.read()).value, { stream: true });
    assert.equal(engine.started, 0);
    assert.ok(!waiting.includes('data:'), 'nothing but keep-alive comments before the first token');
    release();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += decoder.decode(r.value, { stream: true });
    assert.match(rest, /"content":"late"/);
    assert.match(rest, /data: \[DONE\]/);
  });

  it('an error during the stream is one error event, then the stream closes (the SDK throws its message)', async () => {
    t = await startTestServer({
      engine: new FakeEngine([
        { events: [{ kind: 'content', text: 'par' }], fail: { status: 500, code: 'boom', message: 'the worker fell over' } },
        { events: [{ kind: 'content', text: 'x' }], fail: { status: 500, code: 'boom', message: 'the worker fell over' } },
      ]),
    });
    const { events, done } = await readSse(
      await postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content: 'x' }], stream: true }),
    );
    assert.equal(done, false);
    assert.deepEqual(events[events.length - 1], {
      error: { message: 'the worker fell over', type: 'server_error', code: 'boom', param: null },
    });
    const client = new OpenAI({ baseURL: t.url, apiKey: 'x', maxRetries: 0 });
    await assert.rejects(async () => {
      for await (const _ of await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true }));
    }, /the worker fell over/);
  });

  it('a full queue answers 429 with retry-after-ms, for streaming and non-streaming requests', async () => {
    const slow = { startDelayMs: 300, events: [{ kind: 'content' as const, text: 'slow' }] };
    t = await startTestServer({ engine: new FakeEngine([slow, slow, slow, slow], 1) });
    const body = { messages: [{ role: 'user', content: 'x' }] };
    const running = postJson(`${t.url}/chat/completions`, body);
    const queued = postJson(`${t.url}/chat/completions`, body);
    await new Promise((r) => setTimeout(r, 50));
    for (const stream of [false, true]) {
      const res = await postJson(`${t.url}/chat/completions`, { ...body, stream });
      assert.equal(res.status, 429);
      assert.ok(Number(res.headers.get('retry-after-ms')) > 0);
      const err = (await res.json()) as { error: { type: string; code: string } };
      assert.deepEqual([err.error.type, err.error.code], ['rate_limit_error', 'server_busy']);
    }
    assert.equal((await running).status, 200);
    assert.equal((await queued).status, 200);
  });
});

describe('HTTP behaviour', () => {
  it('with an API key every route but /healthz needs the Bearer token', async () => {
    t = await startTestServer({ engine: new FakeEngine([{ events: [{ kind: 'content', text: 'ok' }] }]), options: { apiKey: 'sekret' } });
    assert.equal((await fetch(`${t.origin}/healthz`)).status, 200);
    for (const [url, init] of [
      [`${t.url}/models`, {}],
      [`${t.url}/chat/completions`, { method: 'POST', body: '{}' }],
    ] as const) {
      const none = await fetch(url, init);
      assert.equal(none.status, 401);
      assert.equal(((await none.json()) as { error: { type: string } }).error.type, 'authentication_error');
      assert.equal((await fetch(url, { ...init, headers: { authorization: 'Bearer wrong' } })).status, 401);
    }
    const ok = await postJson(
      `${t.url}/chat/completions`,
      { messages: [{ role: 'user', content: 'x' }] },
      { authorization: 'Bearer sekret' },
    );
    assert.equal(ok.status, 200);
  });

  it('caps request bodies with 413 and explains malformed ones with 400', async () => {
    t = await startTestServer({ engine: new FakeEngine([]), options: { maxBodyBytes: 2048 } });
    const big = await postJson(`${t.url}/chat/completions`, { messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
    assert.equal(big.status, 413);
    assert.match(((await big.json()) as { error: { message: string } }).error.message, /limit is 2048/);
    const cases: Array<[string, RegExp]> = [
      ['{not json', /not valid JSON/],
      ['', /body is empty/],
      [JSON.stringify({ messages: [] }), /messages: messages must hold at least one message/],
      [JSON.stringify({ messages: [{ role: 'wizard', content: 'x' }] }), /messages\.0\.role/],
      [JSON.stringify({ messages: [{ role: 'user', content: 'x' }], temperature: 9 }), /temperature/],
      [JSON.stringify({ messages: [{ role: 'user', content: 'x' }], n: 3 }), /n=3 is not supported/],
      [
        JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:x' } }] }] }),
        /images .* are not supported/,
      ],
    ];
    for (const [body, pattern] of cases) {
      const res = await fetch(`${t.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.equal(res.status, 400, body);
      const err = (await res.json()) as { error: { message: string; type: string } };
      assert.equal(err.error.type, 'invalid_request_error');
      assert.match(err.error.message, pattern);
    }
  });

  it('routes: /chat/completions without /v1, /healthz, /v1/models; 404 and 405 in the envelope', async () => {
    t = await startTestServer({ engine: new FakeEngine([{ events: [{ kind: 'content', text: 'a' }] }]) });
    assert.equal((await postJson(`${t.origin}/chat/completions`, { messages: [{ role: 'user', content: 'x' }] })).status, 200);
    const health = (await (await fetch(`${t.origin}/healthz`)).json()) as { status: string; running: number };
    assert.equal(health.status, 'ok');
    assert.equal((await fetch(`${t.origin}/nope`)).status, 404);
    const wrong = await fetch(`${t.url}/chat/completions`);
    assert.equal(wrong.status, 405);
    assert.ok(((await wrong.json()) as { error: unknown }).error);
  });

  it('no CORS headers unless enabled; with --cors, preflight and origin headers', async () => {
    t = await startTestServer({ engine: new FakeEngine([]) });
    assert.equal((await fetch(`${t.url}/models`)).headers.get('access-control-allow-origin'), null);
    await t.close();
    t = await startTestServer({ engine: new FakeEngine([]), options: { corsOrigins: ['http://localhost:5173'] } });
    const pre = await fetch(`${t.url}/chat/completions`, { method: 'OPTIONS', headers: { origin: 'http://localhost:5173' } });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), 'http://localhost:5173');
    assert.match(pre.headers.get('access-control-allow-headers')!, /x-session-id/);
  });
});
