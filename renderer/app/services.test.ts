import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatStream, checkpointList, event, fakeFetch, json, memoryStorage, nextTick, trainingStatus, until } from '../test/fakeCore.js';
import { API_KEY_STORAGE_KEY, dropKeyFragment } from '../api/apiKey.js';
import { createServices } from './services.js';

const INFO = {
  version: '0.1.0',
  model: { name: 'mini', dir: '/m', architecture: 'qwen3', parameters: 5, context_length: 1024, backend: 'wasm', backend_notes: [] },
  memory: { rss_bytes: 1, heap_used_bytes: 1 },
  data_dir: '/d',
  base_url: 'http://127.0.0.1:1/v1',
  served_model_name: 'mini',
  api_key_set: false,
  openclaw_provider: {},
  openclaw_note: null,
  started_at: 1,
};

function core(opts: { key?: string } = {}) {
  let live = 2;
  const f = fakeFetch({
    'GET /api/info': () => json(200, INFO),
    'GET /api/training/status': () => json(200, trainingStatus(live)),
    'GET /api/checkpoints': () => json(200, checkpointList([], null, live)),
    'GET /api/metrics': () => json(200, { object: 'list', data: [] }),
    'GET /api/sessions': () => json(200, { object: 'list', data: [] }),
    'GET /api/events': () => new Response(new ReadableStream({ start() {} }), { headers: { 'content-type': 'text/event-stream' } }),
    'POST /v1/chat/completions': () => chatStream(['ok'], { version: live }),
  });
  const signIns: string[] = [];
  f.routes.set('POST /api/sign-in', (r) => {
    const { api_key } = r.body as { api_key: string };
    signIns.push(api_key);
    return api_key === opts.key || !opts.key
      ? json(200, { signed_in: true, session_proof: opts.key ? 'proof-1' : null })
      : json(401, { error: { message: 'not the key', type: 'authentication_error', code: 'invalid_api_key', param: 'api_key' } });
  });
  if (opts.key) {
    for (const [k, h] of f.routes) {
      if (k === 'POST /api/sign-in') continue;
      f.routes.set(k, (r) =>
        r.headers.get('authorization') === `Bearer ${opts.key}`
          ? h(r)
          : json(401, {
              error: { message: 'invalid or missing API key', type: 'authentication_error', code: 'invalid_api_key', param: null },
            }),
      );
    }
  }
  return { f, signIns, setLive: (v: number) => (live = v) };
}

test('services: the header’s live version comes from the core and follows adapter.live events', async () => {
  const { f } = core();
  const s = createServices({ storage: memoryStorage(), frame: nextTick, newId: () => 'app-1', fetch: f, retryMs: 10 });
  s.start();
  await until(() => s.core.getState().liveVersion === 2, 3000, 'live version');
  assert.equal(s.core.getState().reachability, 'up');
  assert.equal(s.core.getState().info?.served_model_name, 'mini');
  s.core.getState().onEvent(event(1, 'adapter.live', { version: 3, checkpoint_id: 'step-3', reason: 'trained' }));
  assert.equal(s.core.getState().liveVersion, 3);
  s.stop();
});

test('services: the core going away shows down (the banner); Retry after it is back recovers', async () => {
  const { f } = core();
  const s = createServices({ storage: memoryStorage(), frame: nextTick, newId: () => 'app-1', fetch: f, retryMs: 10 });
  s.start();
  await until(() => s.core.getState().reachability === 'up');
  f.down = true;
  await s.core.getState().refresh();
  assert.equal(s.core.getState().reachability, 'down');
  assert.match(s.core.getState().downReason ?? '', /did not answer/);
  f.down = false;
  s.retry();
  await until(() => s.core.getState().reachability === 'up', 3000, 'up again');
  s.stop();
});

test('services: a 401 asks for the key; a key that works is sent from then on and exchanged for the sign-in cookie, never stored', async () => {
  const { f, signIns } = core({ key: 'sekret-key-1' });
  const storage = memoryStorage();
  storage.setItem(API_KEY_STORAGE_KEY, 'an-old-stored-key'); // kept by an older version
  const s = createServices({ storage, frame: nextTick, newId: () => 'app-1', fetch: f, retryMs: 10 });
  s.start();
  await until(() => s.core.getState().needsKey, 3000, 'key prompt');
  assert.equal(await s.core.getState().submitKey('wrong'), false);
  assert.match(s.core.getState().keyMessage ?? '', /did not work/);
  assert.equal(await s.core.getState().submitKey('sekret-key-1'), true);
  assert.equal(s.core.getState().needsKey, false);
  assert.equal(storage.data.get(API_KEY_STORAGE_KEY), undefined, 'nothing in storage, not even the old key');
  assert.deepEqual(signIns, ['sekret-key-1'], 'only the key that worked was exchanged for the cookie');
  assert.equal(storage.data.get('clawloop.sessionProof'), 'proof-1', 'the session proof is kept for the next visit');
  await until(() => s.core.getState().liveVersion === 2);
  s.stop();
});

test('services: a key in the URL fragment (old links) is dropped unused and the rest of the fragment kept', () => {
  assert.equal(dropKeyFragment('#key=abc123'), '');
  assert.equal(dropKeyFragment('#key=abc&x=1'), '#x=1');
  assert.equal(dropKeyFragment('#section'), null);
  assert.equal(dropKeyFragment(''), null);
});

test('services: the live version has one owner; the checkpoint list and Pause’s answer move it', async () => {
  const { f, setLive } = core();
  f.routes.set('POST /api/training/pause', () => json(200, trainingStatus(6, { state: 'paused' })));
  const s = createServices({ storage: memoryStorage(), frame: nextTick, newId: () => 'app-1', fetch: f, retryMs: 10 });
  s.start();
  await until(() => s.core.getState().liveVersion === 2, 3000, 'live version');
  assert.equal(
    'adapter_version' in (s.core.getState().training ?? {}),
    false,
    'the training status keeps no second copy of the live version',
  );
  setLive(5); // rolled back elsewhere (the CLI, another window)
  await s.checkpoints.getState().load();
  assert.equal(s.core.getState().liveVersion, 5);
  await s.training.getState().setPaused(true);
  assert.deepEqual([s.core.getState().training?.state, s.core.getState().liveVersion], ['paused', 6]);
  s.stop();
});

test('services: the API key has one owner: a key taken by the key prompt is the one Connect shows', async () => {
  const { f } = core({ key: 'sekret-key-1' });
  const s = createServices({ storage: memoryStorage(), frame: nextTick, newId: () => 'app-1', fetch: f, retryMs: 10 });
  const seen: Array<string | null> = [];
  const stop = s.keys.subscribe(() => seen.push(s.keys.get()));
  s.start();
  await until(() => s.core.getState().needsKey, 3000, 'key prompt');
  assert.equal(await s.core.getState().submitKey('sekret-key-1'), true);
  assert.deepEqual(seen, ['sekret-key-1']);
  stop();
  s.keys.set(null);
  assert.deepEqual(seen, ['sekret-key-1'], 'no call after unsubscribing');
  s.stop();
});

test('services: a shutdown the core announces shows (banner state) until it is back; a refusal for it is not "down"', async () => {
  const { f } = core();
  f.routes.set('POST /api/training/pause', () =>
    json(503, {
      error: {
        message: 'ClawLoop is shutting down: finishing training step 4. It takes no new requests until it is started again.',
        type: 'server_error',
        code: 'shutting_down',
        param: null,
      },
    }),
  );
  const s = createServices({ storage: memoryStorage(), frame: nextTick, newId: () => 'app-1', fetch: f, retryMs: 10 });
  s.start();
  await until(() => s.core.getState().reachability === 'up');
  const message = 'ClawLoop is shutting down: finishing training step 4';
  s.core.getState().onEvent(event(5, 'server.stopping', { step: 4, message }));
  assert.deepEqual(s.core.getState().stopping, { step: 4, message });
  // A replay after a restart: the startup event that follows clears it.
  s.core.getState().onEvent(event(6, 'adapter.live', { version: 2, checkpoint_id: null, reason: 'startup' }));
  assert.equal(s.core.getState().stopping, null);

  // An app that missed the event learns it from a refusal, and the core still counts as reachable.
  await assert.rejects(s.api.pauseTraining(), /shutting down/);
  assert.equal(s.core.getState().reachability, 'up');
  assert.equal(s.core.getState().stopping?.message, message);
  // The port closed, then the core came back: the announcement is over.
  s.core.getState().setReachable(false, 'gone');
  s.core.getState().setReachable(true);
  assert.equal(s.core.getState().stopping, null);
  s.stop();
});
