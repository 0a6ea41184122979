import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_TRAINING_CONFIG } from '../../main/protocol/training.js';
import { ApiClient } from '../api/client.js';
import { apiError, fakeFetch, json } from '../test/fakeCore.js';
import { createTrainingStore, patchFromForm, TRAINING_FIELDS } from './trainingStore.js';

const form = (over: Record<string, string> = {}) => ({
  method: 'combine',
  batch_size: '4',
  learning_rate: '0.0001',
  w_rl: '1',
  w_opd: '1',
  kl_coef: '',
  max_staleness: '8',
  keep_checkpoints: '20',
  lora_rank: '8',
  votes: '',
  ...over,
});

test('training settings: only changed fields are sent; empty optional fields mean the default (null)', () => {
  const { patch, errors } = patchFromForm(
    form({ method: 'opd', batch_size: '2', max_staleness: '' }),
    DEFAULT_TRAINING_CONFIG,
    TRAINING_FIELDS,
  );
  assert.deepEqual(errors, {});
  assert.deepEqual(patch, { method: 'opd', batch_size: 2, max_staleness: null });
});

test('training settings: bad values are refused before sending, each with its field and what is allowed', () => {
  const { errors } = patchFromForm(
    form({ batch_size: '0', learning_rate: 'fast', method: 'magic', lora_rank: '2.5' }),
    DEFAULT_TRAINING_CONFIG,
    TRAINING_FIELDS,
  );
  assert.deepEqual(Object.keys(errors).sort(), ['batch_size', 'learning_rate', 'lora_rank', 'method']);
  assert.match(errors.learning_rate, /Learning rate needs a number; “fast” is not one/);
  assert.match(errors.batch_size, /Batch size must be from 1 to 256, whole numbers; you typed 0\. Why: /);
  assert.match(errors.lora_rank, /LoRA rank needs a whole number; you typed 2\.5/);
});

test('training settings: values the schema allows but the method makes no sense of are refused in plain words, with the reason', () => {
  const { errors, patch } = patchFromForm(
    form({ w_rl: '1000000000', learning_rate: '0.5', kl_coef: '' }),
    DEFAULT_TRAINING_CONFIG,
    TRAINING_FIELDS,
  );
  assert.deepEqual(patch, {});
  assert.match(errors.w_rl, /^RL weight must be from 0 to 10; you typed 1000000000\. Why: .*drowns/);
  assert.match(errors.learning_rate, /from 1e-6 to 0\.01/);
  for (const e of Object.values(errors)) assert.doesNotMatch(e, /Too small|Too big|expected/);
});

test('training settings: a refusal by the core lands on the field it names; pause reports the new state', async () => {
  const f = fakeFetch({
    'GET /api/training/config': () => json(200, DEFAULT_TRAINING_CONFIG),
    'PUT /api/training/config': () => apiError(400, 'lora_rank can change only while the base model is live', 'lora_rank'),
    'POST /api/training/pause': () =>
      json(200, { method: 'combine', state: 'paused', queued_samples: 0, step: 0, adapter_version: 0, last_step: null }),
  });
  let reported = '';
  const store = createTrainingStore(new ApiClient({ fetch: f, getKey: () => null }), (s) => (reported = s.state));
  await store.getState().load();
  assert.equal(await store.getState().save(form({ lora_rank: '16' })), false);
  assert.match(store.getState().fieldErrors.lora_rank, /only while the base model/);
  assert.deepEqual(f.calls.find((c) => c.method === 'PUT')!.body, { lora_rank: 16 });
  await store.getState().setPaused(true);
  assert.equal(reported, 'paused');
});
