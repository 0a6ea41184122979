import assert from 'node:assert/strict';
import { test } from 'node:test';
import { turnView } from '../test/fakeCore.js';
import { contextUse } from './contextUse.js';
import type { ChatItem } from './thread.js';

const answer = (turnId: string | null, content: string): ChatItem => ({
  kind: 'answer',
  key: `a-${content}`,
  turnId,
  content,
  reasoning: '',
  version: 0,
  streaming: false,
  finishReason: 'stop',
  error: null,
});
const user = (content: string): ChatItem => ({ kind: 'user', key: `u-${content}`, role: 'user', content });

test('context: counted up to the last recorded answer, estimated after it, and a warning before it does not fit', () => {
  const turns = { t1: turnView('t1', { prompt_tokens: 100, completion_tokens: 20 }) };
  const items = [user('hello'), answer('t1', 'x'.repeat(60)), user('y'.repeat(30))];
  // 120 counted by the core, then 30 characters (10 tokens + 6 for the message) and the draft's 1 + 6.
  assert.deepEqual(contextUse(items, turns, 'abc', 1000), { tokens: 143, contextLength: 1000, level: 'ok' });
  assert.equal(contextUse(items, turns, 'abc', 160).level, 'near');
  assert.equal(contextUse(items, turns, 'z'.repeat(3000), 1000).level, 'over');
  // Nothing recorded yet: everything is estimated.
  assert.equal(contextUse([user('abc')], {}, '', 100).tokens, 7);
});
