import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../api/client.js';
import { chatStream, fakeFetch, json, memoryStorage, nextTick, session, turnView, type FakeFetch } from '../test/fakeCore.js';
import { createChatStore } from './chatStore.js';
import type { AnswerItem } from './thread.js';
import { UNSENT_TEXT } from './unsentMessages.js';

function setup(f: FakeFetch, storage = memoryStorage()) {
  let n = 0;
  const api = new ApiClient({ fetch: f, getKey: () => null });
  return createChatStore({ api, storage, frame: nextTick, newId: () => `app-${++n}` });
}

test('chat: a message sent while the core is down survives its coming back and a page reload, and Regenerate sends it', async () => {
  let recorded = false;
  const f = fakeFetch({
    'GET /api/sessions': () => json(200, { object: 'list', data: recorded ? [session('app-1')] : [] }),
    'GET /api/sessions/:id': () =>
      recorded
        ? json(200, {
            ...session('app-1'),
            turns: [turnView('chatcmpl-9', { session_id: 'app-1', messages: [{ role: 'user', content: 'Hi there' }], response: 'Hello' })],
          })
        : json(404, { error: { message: 'no session', type: 'invalid_request_error', param: null, code: 'not_found' } }),
    'POST /v1/chat/completions': () => {
      recorded = true;
      return chatStream(['Hello'], { id: 'chatcmpl-9' });
    },
    'GET /api/turns/:id': () => json(200, turnView('chatcmpl-9')),
  });
  const storage = memoryStorage();
  const store = setup(f, storage);
  const id = store.getState().newConversation();
  store.getState().setDraft(id, 'Hi there');
  f.down = true;
  await store.getState().send();
  f.down = false;

  // The core is back: the list and the open thread are reloaded from it, which never got the message.
  await store.getState().loadConversations();
  await store.getState().loadThread(id);
  const shown = (s: ReturnType<typeof store.getState>) =>
    s.threads[id].map((it) =>
      it.kind === 'user' ? it.content : ((it as AnswerItem).error?.includes('Your message is kept') ?? (it as AnswerItem).content),
    );
  assert.deepEqual(shown(store.getState()), ['Hi there', true]);
  assert.ok(
    store.getState().conversations.some((c) => c.id === id),
    'the conversation stays listed',
  );

  // A page reload: a new store on the same storage.
  const again = setup(f, storage);
  await again.getState().loadConversations();
  await again.getState().select(id);
  assert.deepEqual(shown(again.getState()), ['Hi there', true]);
  assert.equal((again.getState().threads[id][1] as AnswerItem).error, UNSENT_TEXT);

  await again.getState().regenerate();
  const items = again.getState().threads[id];
  assert.deepEqual([items.length, (items[1] as AnswerItem).content, (items[1] as AnswerItem).error], [2, 'Hello', null]);
  assert.deepEqual(again.getState().unsent, {});
  await again.getState().loadThread(id);
  assert.deepEqual(shown(again.getState()), ['Hi there', 'Hello'], 'answered: the kept message is not shown twice');
});
