import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiError, fakeFetch, json } from '../test/fakeCore.js';
import { ApiClient } from './client.js';
import { ApiRequestError, CoreUnreachableError } from './transport.js';

test('transport: the key goes in Authorization, bodies are JSON with their content type', async () => {
  const settings = {
    model_dir: '/m',
    backend: null,
    data_dir: '/d',
    restart_required: true,
    running: { model_dir: '/b', backend: 'wasm' },
  };
  const f = fakeFetch({ 'PUT /api/settings': () => json(200, settings) });
  const api = new ApiClient({ fetch: f, getKey: () => 'k-123' });
  assert.deepEqual(await api.saveSettings({ model_dir: '/m' }), settings);
  const c = f.calls[0];
  assert.equal(c.headers.get('authorization'), 'Bearer k-123');
  assert.equal(c.headers.get('content-type'), 'application/json');
  assert.deepEqual(c.body, { model_dir: '/m' });
});

test('transport: OpenAI’s error envelope becomes an error with the core’s sentence and field', async () => {
  const f = fakeFetch({
    'PUT /api/settings': () => apiError(400, "'/tmp/x' is not a model folder: config.json is missing", 'model_dir'),
    'GET /api/info': () => new Response('Bad Gateway', { status: 502 }),
  });
  const api = new ApiClient({ fetch: f, getKey: () => null });
  await assert.rejects(api.saveSettings({ model_dir: '/tmp/x' }), (e: unknown) => {
    assert.ok(e instanceof ApiRequestError);
    assert.equal(e.status, 400);
    assert.equal(e.param, 'model_dir');
    assert.match(e.message, /config\.json is missing/);
    return true;
  });
  await assert.rejects(api.info(), /HTTP 502: Bad Gateway/);
});

test('client: an answer of the wrong shape is refused with the field named', async () => {
  const f = fakeFetch({ 'GET /api/training/status': () => json(200, { method: 'combine', state: 'idle', queued_samples: 'many' }) });
  const api = new ApiClient({ fetch: f, getKey: () => null });
  await assert.rejects(api.trainingStatus(), /GET \/api\/training\/status in a shape this app does not know \(queued_samples: /);
});

test('transport: no answer at all is CoreUnreachableError and reported as unreachable', async () => {
  const f = fakeFetch();
  f.down = true;
  const seen: boolean[] = [];
  const api = new ApiClient({ fetch: f, getKey: () => null, onReachability: (up) => seen.push(up) });
  await assert.rejects(api.trainingStatus(), CoreUnreachableError);
  assert.deepEqual(seen, [false]);
});
