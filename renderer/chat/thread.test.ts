import assert from 'node:assert/strict';
import { test } from 'node:test';
import { turnView } from '../test/fakeCore.js';
import { requestMessages, threadFromTurns, titleFrom, type ChatItem } from './thread.js';

test('thread: failed and empty answers are not sent back to the model', () => {
  const items: ChatItem[] = [
    { kind: 'user', key: 'u1', role: 'user', content: 'a' },
    { kind: 'answer', key: 'a1', turnId: null, content: 'partial', reasoning: '', version: 0, streaming: false, finishReason: 'error', error: 'down', again: undefined },
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
});

test('thread: titles are one line of at most 60 characters', () => {
  assert.equal(titleFrom('  How many\n minutes?  '), 'How many minutes?');
  assert.equal(titleFrom('x'.repeat(80)).length, 58);
});
