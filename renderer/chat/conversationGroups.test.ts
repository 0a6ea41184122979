import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConversationSummary } from './chatStore.js';
import { groupByDate, matches } from './conversationGroups.js';

const conv = (id: string, at: number, preview: string | null = null): ConversationSummary => ({
  id,
  title: null,
  preview,
  created_at: at,
  last_seen_at: at,
});

test('conversation groups: today, yesterday, the previous 7 and 30 days, older, in the order given', () => {
  const now = new Date(2026, 10, 27, 15, 0).getTime();
  const day = 24 * 60 * 60 * 1000;
  const list = [
    conv('a', now - 60_000),
    conv('b', now - day),
    conv('c', now - 3 * day),
    conv('d', now - 20 * day),
    conv('e', now - 90 * day),
  ];
  assert.deepEqual(
    groupByDate(list, now).map((g) => [g.label, g.items.map((c) => c.id).join()]),
    [
      ['Today', 'a'],
      ['Yesterday', 'b'],
      ['Previous 7 days', 'c'],
      ['Previous 30 days', 'd'],
      ['Older', 'e'],
    ],
  );
});

test('conversation search: every word, any case, in the title or the first message', () => {
  const c = conv('x', 0, 'Convert 2 km to meters.');
  assert.ok(matches(c, 'Units', 'KM meters'));
  assert.ok(matches(c, 'Units', 'units'));
  assert.ok(!matches(c, 'Units', 'km miles'));
  assert.ok(matches(c, 'Units', '  '));
});
