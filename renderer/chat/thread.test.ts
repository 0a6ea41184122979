import assert from 'node:assert/strict';
import { test } from 'node:test';
import { turnView } from '../test/fakeCore.js';
import { requestMessages, titleFrom, type ChatItem } from './thread.js';
import { threadFromTurns } from './threadFromTurns.js';

test('thread: failed and empty answers are not sent back to the model', () => {
  const items: ChatItem[] = [
    { kind: 'user', key: 'u1', role: 'user', content: 'a' },
    {
      kind: 'answer',
      key: 'a1',
      turnId: null,
      content: 'partial',
      reasoning: '',
      version: 0,
      streaming: false,
      finishReason: 'error',
      error: 'down',
      again: undefined,
    },
    { kind: 'user', key: 'u2', role: 'user', content: 'b' },
  ];
  assert.deepEqual(requestMessages(items), [
    { role: 'user', content: 'a' },
    { role: 'user', content: 'b' },
  ]);
});

test('thread: a regenerated answer replaces the first, and a side turn on the same prompt sits beside it', () => {
  const q = [{ role: 'user' as const, content: 'q' }];
  const turns = [
    turnView('t1', { created_at: 1, messages: q, response: 'first' }),
    turnView('t2', { created_at: 2, messages: q, response: 'second', adapter_version: 1 }),
    turnView('t3', { created_at: 3, type: 'side', messages: q, response: 'again', adapter_version: 2 }),
  ];
  const items = threadFromTurns(turns);
  assert.equal(items.length, 2);
  const a = items[1];
  assert.ok(a.kind === 'answer');
  assert.equal(a.turnId, 't2');
  assert.equal(a.again?.content, 'again');
  assert.equal(a.again?.version, 2);
  // The answer it replaced is kept: 2/2, with 1/2 a click away.
  assert.deepEqual(
    a.alternatives?.map((x) => x.content),
    ['first', 'second'],
  );
  assert.equal(a.alternativeIndex, 1);
});

test('thread: an Ask again that wrote the same text as the answer stays beside it, not in its place', () => {
  const q = { role: 'user' as const, content: 'q' };
  const turns = [
    turnView('t1', { created_at: 1, messages: [q], response: 'same' }),
    turnView('s1', { created_at: 2, type: 'side', messages: [q], response: 'same' }),
    turnView('t2', {
      created_at: 3,
      messages: [q, { role: 'assistant', content: 'same' }, { role: 'user', content: 'more' }],
      response: 'next',
    }),
  ];
  const items = threadFromTurns(turns);
  assert.deepEqual(
    items.map((i) => (i.kind === 'answer' ? `${i.turnId}${i.again ? `+${i.again.turnId}` : ''}` : i.content)),
    ['q', 't1+s1', 'more', 't2'],
  );
});

test('thread: an OpenClaw tool call shows its name, arguments and result; every answer keeps its version; side turns show, marked', () => {
  const system = { role: 'system' as const, content: 'You are a personal assistant.' };
  const ask = { role: 'user' as const, content: '[Fri 2026-11-27 12:03 UTC] Weather in Paris?' };
  const call = { id: 'call_1', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
  const turns = [
    turnView('t1', {
      created_at: 1,
      messages: [system, ask],
      response: '',
      finish_reason: 'tool_calls',
      tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      adapter_version: 3,
    }),
    turnView('h1', {
      created_at: 2,
      type: 'side',
      messages: [{ role: 'user', content: 'Summarize the conversation so far.' }],
      response: 'A summary.',
      adapter_version: 3,
    }),
    // The client sends a new system prompt with the continuation: the first answer is found by its text and calls.
    turnView('t2', {
      created_at: 3,
      messages: [
        { role: 'system', content: 'Other prompt' },
        ask,
        { role: 'assistant', content: null as unknown as string, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_1', content: '18 °C, sunny' },
      ],
      response: 'It is 18 °C and sunny in Paris.',
      adapter_version: 4,
    }),
  ];
  const items = threadFromTurns(turns);
  assert.deepEqual(
    items.map((it) =>
      it.kind === 'user'
        ? `user:${it.content}`
        : `${it.side ? 'side' : 'answer'}:v${it.version}:${it.toolCalls?.map((c) => `${c.name}(${c.arguments})=${c.result}`).join() ?? ''}`,
    ),
    ['user:[Fri 2026-11-27 12:03 UTC] Weather in Paris?', 'answer:v3:get_weather({"city":"Paris"})=18 °C, sunny', 'side:v3:', 'answer:v4:'],
  );
  const side = items[2];
  assert.ok(side.kind === 'answer' && side.side?.prompt === 'Summarize the conversation so far.');
});

test('thread: a session of side turns only shows each of them, marked', () => {
  const items = threadFromTurns([
    turnView('s1', { type: 'side', response: 'one' }),
    turnView('s2', { type: 'side', created_at: 5, response: 'two' }),
  ]);
  assert.deepEqual(
    items.map((it) => (it.kind === 'answer' && it.side ? it.content : '?')),
    ['one', 'two'],
  );
});

test('thread: titles are one line of at most 60 characters', () => {
  assert.equal(titleFrom('  How many\n minutes?  '), 'How many minutes?');
  assert.equal(titleFrom('x'.repeat(80)).length, 58);
  assert.equal(
    titleFrom('[Fri 2026-11-27 12:03 UTC] Weather in Paris?'),
    'Weather in Paris?',
    "OpenClaw's envelope is not the user's words",
  );
  assert.equal(titleFrom('[Signal Alice +1555 +2m 2026-01-18T05:19Z] follow-up'), 'follow-up');
  assert.equal(titleFrom('[link] text'), '[link] text');
});
