import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, type BackendName } from '../../main/engine/backends/backend.js';
import { generateText } from '../../main/engine/generation/generate.js';
import { Model } from '../../main/engine/model/model.js';
import { expected } from '../helpers/fixtures.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';
import { FIXTURE_MODELS, modelDir } from '../helpers/paths.js';

// Greedy generation on the fixture models with prompts long enough for the native backend's tiled
// attention (from 32 queries on): the prefill, and a full pass over the sequence for every token,
// run it; the pure-JS CPU backend runs the composite attention. The fixtures' own greedy prompts
// (5 tokens) never reach it.

const PROMPT = 70;
const NEW = 12;

/** The fixture's greedy prompt repeated to PROMPT tokens. */
function longPrompt(name: (typeof FIXTURE_MODELS)[number]): number[] {
  const base = expected(name).greedy_prompt as number[];
  return Array.from({ length: PROMPT }, (_, i) => base[i % base.length]);
}

/** Greedy tokens through the KV cache, and without it (one pass over the whole sequence per token), on `backend`. */
async function greedyOn(backend: BackendName, name: (typeof FIXTURE_MODELS)[number]): Promise<{ cached: number[]; passes: number[] }> {
  await initBackend(backend);
  const model = await Model.load(modelDir(name));
  try {
    const prompt = longPrompt(name);
    const cached = (await generateText(model.lm, model.tokenizer, prompt, { temperature: 0, maxNewTokens: NEW })).tokens;
    const ids = [...prompt];
    for (let i = 0; i < NEW; i++) {
      ids.push(
        tf.tidy(
          () => tf.argMax(tf.reshape(model.lm.forward(tf.tensor2d(ids, [1, ids.length], 'int32'), { lastOnly: true }), [-1])).dataSync()[0],
        ),
      );
    }
    return { cached, passes: ids.slice(PROMPT) };
  } finally {
    model.dispose();
  }
}

describe('greedy generation with the tiled attention gives the tokens of the composite attention', { skip: nativeSkipReason() }, () => {
  for (const name of FIXTURE_MODELS) {
    it(`${name}: a ${PROMPT}-token prompt, ${NEW} tokens with and without the KV cache`, async () => {
      const composite = await greedyOn('cpu', name);
      const tiled = await greedyOn('native', name);
      await initBackend('wasm');
      assert.deepEqual(tiled.cached, composite.cached, 'through the KV cache');
      assert.deepEqual(tiled.passes, composite.passes, 'a full pass per token');
      assert.deepEqual(tiled.cached, tiled.passes, 'the cache changes nothing');
    });
  }
});
