import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../api/client.js';
import {
  apiError,
  chatStream,
  checkpoint,
  checkpointList,
  event,
  fakeFetch,
  json,
  memoryStorage,
  nextTick,
  receipt,
  session,
  turnView,
  until,
  type FakeFetch,
} from '../test/fakeCore.js';
import { createChatStore } from './chatStore.js';
import type { AnswerItem } from './thread.js';

function setup(f: FakeFetch, storage = memoryStorage()) {
  let n = 0;
  const api = new ApiClient({ fetch: f, getKey: () => null });
  const store = createChatStore({ api, storage, frame: nextTick, newId: () => `app-${++n}` });
  return { store, storage };
}

const lastAnswer = (items: unknown[]) => items.at(-1) as AnswerItem;

test('chat: a sent message streams into an answer labelled with the version and turn id, and the draft clears', async () => {
  const f = fakeFetch({
    'POST /v1/chat/completions': () => chatStream(['Hel', 'lo', ' there'], { id: 'chatcmpl-1', version: 3 }),
    'GET /api/turns/:id': () => json(200, turnView('chatcmpl-1', { adapter_version: 3 })),
  });
  const { store } = setup(f);
  const id = store.getState().newConversation();
  store.getState().setDraft(id, '  Hi!  ');
  await store.getState().send();
  const items = store.getState().threads[id];
  assert.equal(items.length, 2);
  assert.deepEqual(items[0], { ...items[0], kind: 'user', content: 'Hi!' });
  const a = lastAnswer(items);
  assert.equal(a.content, 'Hello there');
  assert.equal(a.version, 3);
  assert.equal(a.turnId, 'chatcmpl-1');
  assert.equal(a.streaming, false);
  assert.equal(a.finishReason, 'stop');
  assert.equal(store.getState().drafts[id], undefined);
  const req = f.calls.find((c) => c.path === '/v1/chat/completions')!;
  assert.equal(req.headers.get('x-session-id'), id);
  assert.equal(req.headers.get('x-turn-type'), 'main');
  assert.equal(req.headers.get('content-type'), 'application/json');
  assert.deepEqual((req.body as { messages: unknown }).messages, [{ role: 'user', content: 'Hi!' }]);
  await until(() => store.getState().turns['chatcmpl-1'] !== undefined, 3000, 'the turn view');
  assert.equal(store.getState().conversations[0].preview, 'Hi!');
  assert.equal(store.getState().conversations[0].local, false);
});

test('chat: drafts survive a reload (a new store on the same storage)', () => {
  const storage = memoryStorage();
  const { store } = setup(fakeFetch(), storage);
  const id = store.getState().newConversation();
  store.getState().setDraft(id, 'half a thought');
  const again = setup(fakeFetch(), storage).store;
  assert.equal(again.getState().drafts[id], 'half a thought');
  assert.equal(again.getState().activeId, id);
});

test('chat: Stop ends the stream, keeps what arrived and marks the answer stopped', async () => {
  const f = fakeFetch({
    'POST /v1/chat/completions': (r) => chatStream(['one', ' two', ' three'], { id: 'c-stop', hold: 2, signal: r.signal }),
  });
  const { store } = setup(f);
  const id = store.getState().newConversation();
  store.getState().setDraft(id, 'count');
  const sent = store.getState().send();
  await until(() => lastAnswer(store.getState().threads[id] ?? []).content === 'one two', 3000, 'two tokens');
  assert.equal(store.getState().sending, id);
  store.getState().stop();
  await sent;
  const a = lastAnswer(store.getState().threads[id]);
  assert.equal(a.finishReason, 'abort');
  assert.equal(a.content, 'one two');
  assert.equal(a.error, null);
  assert.equal(store.getState().sending, null);
});

test('chat: Regenerate and editing the last message resend the right prompt and replace the last answer', async () => {
  let k = 0;
  const f = fakeFetch({ 'POST /v1/chat/completions': () => chatStream([`answer ${++k}`], { id: `c-${k}` }) });
  const { store } = setup(f);
  const id = store.getState().newConversation();
  store.getState().setDraft(id, 'first');
  await store.getState().send();
  store.getState().setDraft(id, 'second');
  await store.getState().send();
  await store.getState().regenerate();
  let items = store.getState().threads[id];
  assert.deepEqual(
    items.map((i) => i.content),
    ['first', 'answer 1', 'second', 'answer 3'],
  );
  const bodies = f.calls
    .filter((c) => c.path === '/v1/chat/completions')
    .map((c) => (c.body as { messages: Array<{ content: string }> }).messages.map((m) => m.content));
  assert.deepEqual(bodies[2], ['first', 'answer 1', 'second']);
  // The replaced answer is kept: shown again, it is the one the conversation goes on from.
  const last = items[3];
  assert.ok(last.kind === 'answer');
  assert.deepEqual([last.alternatives?.length, last.alternatives?.[0].content, last.alternativeIndex], [2, 'answer 2', 1]);
  store.getState().showAlternative(last.key, 0);
  const shown = store.getState().threads[id][3];
  assert.ok(shown.kind === 'answer');
  assert.deepEqual([shown.content, shown.turnId, shown.alternativeIndex], ['answer 2', 'c-2', 0]);
  store.getState().setDraft(id, 'third');
  await store.getState().send();
  assert.deepEqual(
    (f.calls.filter((c) => c.path === '/v1/chat/completions').at(-1)!.body as { messages: Array<{ content: string }> }).messages.map(
      (m) => m.content,
    ),
    ['first', 'answer 1', 'second', 'answer 2', 'third'],
  );
  await store.getState().editLast('third, edited');
  items = store.getState().threads[id];
  assert.deepEqual(
    items.map((i) => i.content),
    ['first', 'answer 1', 'second', 'answer 2', 'third, edited', 'answer 5'],
  );
});

test('chat: when the core is down the answer says so and the message stays in the thread', async () => {
  const f = fakeFetch();
  f.down = true;
  const { store } = setup(f);
  const id = store.getState().newConversation();
  store.getState().setDraft(id, 'are you there?');
  await store.getState().send();
  const items = store.getState().threads[id];
  assert.equal(items[0].content, 'are you there?');
  assert.match(lastAnswer(items).error ?? '', /core stopped answering.*Regenerate/);
});

test('chat: Ask again streams the same prompt as a side turn beside the first answer', async () => {
  const f = fakeFetch({
    'POST /v1/chat/completions': (r) => chatStream([r.headers.get('x-turn-type') ?? '?'], { id: `c-${f.calls.length}`, version: 5 }),
  });
  const { store } = setup(f);
  const id = store.getState().newConversation();
  store.getState().setDraft(id, 'q');
  await store.getState().send();
  const first = lastAnswer(store.getState().threads[id]);
  await store.getState().askAgain(first.key);
  const a = lastAnswer(store.getState().threads[id]);
  assert.equal(a.content, 'main');
  assert.equal(a.again?.content, 'side');
  assert.equal(a.again?.version, 5);
});

test('chat: a rating is sent, the turn refetched; pressing it again clears it; a refusal is shown and undone', async () => {
  let view = turnView('t1');
  const f = fakeFetch({
    'POST /v1/feedback': (r) => {
      const b = r.body as { rating?: 'up' | 'down' | null };
      if (b.rating === 'down') return apiError(409, 'this turn has been trained on already', 'completion_id');
      view = {
        ...view,
        feedback: { rating: b.rating ?? null, hint: null, reject_judge_hint: false, updated_at: 1 },
        receipt: receipt('queued'),
      };
      return json(200, {
        completion_id: 't1',
        rating: b.rating ?? null,
        hint: null,
        updated_at: 1,
        session_id: 's1',
        turn_type: 'main',
        trainable: true,
      });
    },
    'GET /api/turns/:id': () => json(200, view),
  });
  const { store } = setup(f);
  store.setState({ turns: { t1: view } });
  await store.getState().rate('t1', 'up');
  assert.equal(store.getState().turns.t1.feedback?.rating, 'up');
  assert.equal(store.getState().turns.t1.receipt?.stage, 'queued');
  await store.getState().rate('t1', 'up');
  assert.equal((f.calls.filter((c) => c.path === '/v1/feedback').at(-1)!.body as { rating: unknown }).rating, null);
  await store.getState().rate('t1', 'down');
  assert.match(store.getState().actionErrors.t1, /trained on already/);
  assert.notEqual(store.getState().turns.t1.feedback?.rating, 'down');
});

test('chat: events that name a shown turn refetch it once, and adapter.live refetches trained turns', async () => {
  const f = fakeFetch({ 'GET /api/turns/:id': (r) => json(200, turnView(r.path.split('/').pop()!)) });
  const { store } = setup(f);
  const trained = receipt('trained', { score: 1, step: 4, checkpoint_id: 'step-4' });
  store.setState({ turns: { a: turnView('a'), b: turnView('b', { receipt: trained }) } });
  const s = store.getState();
  const judged = (turn_id: string) => ({
    turn_id,
    score: 1,
    score_source: 'feedback' as const,
    votes: [],
    hint: null,
    method: 'rl' as const,
    reason: null,
  });
  s.onEvent(event(1, 'feedback.received', { turn_id: 'a', kind: 'thumbs_up', text: null }));
  s.onEvent(event(2, 'sample.judged', judged('a')));
  s.onEvent(event(3, 'sample.judged', judged('not-shown')));
  s.onEvent(event(4, 'adapter.live', { version: 5, checkpoint_id: 'step-4', reason: 'trained' }));
  await until(() => f.calls.length >= 2, 3000, 'refetches');
  await new Promise((r) => setTimeout(r, 250));
  assert.deepEqual(f.calls.map((c) => c.path).sort(), ['/api/turns/a', '/api/turns/b']);
});

test('chat: Roll back to before this makes the parent of the training checkpoint live, or the base model', async () => {
  const f = fakeFetch({
    'GET /api/checkpoints': () =>
      json(200, checkpointList([checkpoint('step-2', 2, 'step-1'), checkpoint('step-1', 1, null)], 'step-2', 2)),
    'POST /api/checkpoints/:id/rollback': (r) => json(200, { checkpoint: r.path.split('/')[3], adapter_version: 7 }),
  });
  const { store } = setup(f);
  const live = (cp: string) => receipt('live', { score: 1, step: 1, checkpoint_id: cp, version: 2 });
  store.setState({ turns: { x: turnView('x', { receipt: live('step-2') }), y: turnView('y', { receipt: live('step-1') }) } });
  assert.equal(await store.getState().rollbackBefore('x'), 7);
  assert.equal(await store.getState().rollbackBefore('y'), 7);
  assert.deepEqual(
    f.calls.filter((c) => c.method === 'POST').map((c) => c.path),
    ['/api/checkpoints/step-1/rollback', '/api/checkpoints/base/rollback'],
  );
  store.setState({ turns: { z: turnView('z') } });
  assert.equal(await store.getState().rollbackBefore('z'), null);
  assert.match(store.getState().actionErrors.z, /not been trained/);
});

test('chat: a conversation recorded by the core is rebuilt from its turns', async () => {
  const turns = [
    turnView('t1', { session_id: 'c', created_at: 1, messages: [{ role: 'user', content: 'a' }], response: 'A', adapter_version: 1 }),
    turnView('t2', {
      session_id: 'c',
      created_at: 2,
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'A' },
        { role: 'user', content: 'b' },
      ],
      response: 'B',
      adapter_version: 2,
    }),
  ];
  const f = fakeFetch({
    'GET /api/sessions': () => json(200, { object: 'list', data: [session('c', { title: 'Letters' })] }),
    'GET /api/sessions/:id': () => {
      const { main_turns: _, ...info } = session('c', { title: 'Letters' });
      return json(200, { ...info, turns });
    },
  });
  const { store } = setup(f);
  await store.getState().loadConversations();
  assert.equal(store.getState().conversations[0].title, 'Letters');
  await store.getState().select('c');
  const items = store.getState().threads.c;
  assert.deepEqual(
    items.map((i) => [i.kind, i.content, i.kind === 'answer' ? i.turnId : null, i.kind === 'answer' ? i.version : null]),
    [
      ['user', 'a', null, null],
      ['answer', 'A', 't1', 1],
      ['user', 'b', null, null],
      ['answer', 'B', 't2', 2],
    ],
  );
  assert.ok(store.getState().turns.t1 && store.getState().turns.t2);
});

test('chat: a conversation’s system prompt goes first in each of its requests, with its temperature; both survive a reload', async () => {
  const f = fakeFetch({ 'POST /v1/chat/completions': () => chatStream(['ok'], { id: 'c-1' }) });
  const { store, storage } = setup(f);
  const id = store.getState().newConversation();
  store.getState().setConversationSettings(id, { system: 'Answer in French.' });
  store.getState().setConversationSettings(id, { temperature: 0.2 });
  store.getState().setDraft(id, 'hello');
  await store.getState().send();
  const body = f.calls.filter((c) => c.path === '/v1/chat/completions').at(-1)!.body as {
    messages: Array<{ role: string; content: string }>;
    temperature?: number;
  };
  assert.deepEqual(body.messages, [
    { role: 'system', content: 'Answer in French.' },
    { role: 'user', content: 'hello' },
  ]);
  assert.equal(body.temperature, 0.2);
  const again = setup(f, storage).store;
  assert.deepEqual(again.getState().conversationSettings[id], { system: 'Answer in French.', temperature: 0.2 });
});
