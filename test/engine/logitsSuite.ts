import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { Model } from '../../main/engine/model/model.js';
import { scoreResponses, tokenLogprobs } from '../../main/engine/generation/score.js';
import { expected, tensor } from '../helpers/fixtures.js';
import { assertAbsClose } from '../helpers/numeric.js';
import { FIXTURE_MODELS, modelDir } from '../helpers/paths.js';

/** The logits and log-prob checks against PyTorch, on one backend. */
export function logitsSuite(backend: 'wasm' | 'cpu'): void {
  for (const name of FIXTURE_MODELS) {
    describe(`${name} matches PyTorch (${backend})`, () => {
      let model: Model;
      const e = expected(name);
      after(() => model?.dispose());

      it('loads from safetensors', async () => {
        model = await Model.load(modelDir(name), { backend });
        assert.equal(tf.getBackend(), backend);
      });

      it('logits within 1e-4', () => {
        const logits = tf.tidy(() => model.lm.forward(tf.tensor2d(e.ids.flat(), [2, 12], 'int32')).dataSync());
        assertAbsClose(logits, tensor(e, 'logits'), 1e-4, 'logits');
      });

      it('token log-probs within 1e-4 (batched scoring and per sequence)', async () => {
        const items = e.ids.map((seq) => ({ promptIds: seq.slice(0, 1), responseIds: seq.slice(1) }));
        const batched = await scoreResponses(model.lm, items, { batchSize: 2 });
        assertAbsClose(
          batched.flatMap((r) => [...r.logprobs]),
          tensor(e, 'logprobs'),
          1e-4,
          'batched log-probs',
        );
        const single = await tokenLogprobs(model.lm, e.ids[1]);
        assert.equal(single[0], null);
        assertAbsClose(single.slice(1) as number[], tensor(e, 'logprobs').slice(11), 1e-4, 'single log-probs');
      });

      it('last-position logits equal the full pass', () => {
        const [full, last] = tf.tidy(() => {
          const ids = tf.tensor2d(e.ids.flat(), [2, 12], 'int32');
          const f = tf.slice(model.lm.forward(ids), [0, 11, 0], [2, 1, -1]).dataSync();
          const l = model.lm.forward(ids, { lastOnly: true }).dataSync();
          return [f, l];
        });
        assertAbsClose(last, full, 1e-6, 'lastOnly logits');
      });
    });
  }
}
