import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../api/client.js';
import { fakeFetch, json, memoryStorage, nextTick, session } from '../test/fakeCore.js';
import { createChatStore } from './chatStore.js';

/** Issue 41 (NEW-3): the conversation list is read a page at a time, not as one answer of every session. */
test('chat: the conversation list loads page by page, following next_cursor, and shows the first page before the rest', async () => {
  const pages: Record<string, { ids: string[]; next: string | null }> = {
    '': { ids: ['c5', 'c4'], next: 'p2' },
    p2: { ids: ['c3', 'compare-x', 'c2'], next: 'p3' },
    p3: { ids: ['c1'], next: null },
  };
  let release: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  const f = fakeFetch({
    'GET /api/sessions': async (req) => {
      const cursor = req.query.get('cursor') ?? '';
      if (cursor === 'p3') await held;
      const p = pages[cursor];
      const data = p.ids.map((id, i) => session(id, { last_seen_at: 1000 * (10 - i) - cursor.length }));
      return json(200, { object: 'list', data, has_more: p.next !== null, next_cursor: p.next });
    },
  });
  const api = new ApiClient({ fetch: f, getKey: () => null });
  const store = createChatStore({ api, storage: memoryStorage(), frame: nextTick, newId: () => 'new-1' });
  const loading = store.getState().loadConversations();
  for (let i = 0; i < 50 && f.calls.length < 3; i++) await new Promise((r) => setTimeout(r, 0));
  await new Promise((r) => setTimeout(r, 0));
  const early = store.getState().conversations.map((c) => c.id);
  assert.ok(early.includes('c5') && early.includes('c2') && !early.includes('c1'), `shown before the last page: ${early}`);
  release();
  await loading;
  const ids = store.getState().conversations.map((c) => c.id);
  assert.deepEqual([...ids].sort(), ['c1', 'c2', 'c3', 'c4', 'c5'], 'every page, without compare sessions');
  assert.deepEqual(
    f.calls.map((c) => c.query.get('cursor')),
    [null, 'p2', 'p3'],
  );
});

test('api: sessions() reads every page of at most 1000 and returns them as one list', async () => {
  const f = fakeFetch({
    'GET /api/sessions': (req) =>
      req.query.get('cursor')
        ? json(200, { object: 'list', data: [session('b')], has_more: false, next_cursor: null })
        : json(200, { object: 'list', data: [session('a')], has_more: true, next_cursor: 'next' }),
  });
  const list = await new ApiClient({ fetch: f, getKey: () => null }).sessions();
  assert.deepEqual(
    list.data.map((s) => s.id),
    ['a', 'b'],
  );
  assert.deepEqual(
    f.calls.map((c) => c.query.get('limit')),
    ['1000', '1000'],
  );
});
