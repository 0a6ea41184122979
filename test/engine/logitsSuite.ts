import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import type { BackendName } from '../../main/engine/backends/backend.js';
import { Model } from '../../main/engine/model/model.js';
import { scoreResponses, tokenLogprobs } from '../../main/engine/generation/score.js';
import { expected, tensor } from '../helpers/fixtures.js';
import { logitsModel, logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { FIXTURE_MODELS, modelDir } from '../helpers/paths.js';

/** The logits and log-prob checks against PyTorch, on one backend. */
export function logitsSuite(backend: BackendName, opts: { skip?: string | false } = {}): void {
  for (const name of FIXTURE_MODELS) {
    describe(`${name} matches PyTorch (${backend})`, { skip: opts.skip ?? false }, () => {
      let model: Model;
      const e = expected(name);
      after(() => model?.dispose());

      it('loads from safetensors', async () => {
        model = await Model.load(modelDir(name), { backend });
        assert.equal(tf.getBackend(), backend);
      });

      it('logits within the tolerance of their reductions', async () => {
        const logits = await tf.tidy(() => model.lm.forward(tf.tensor2d(e.ids.flat(), [2, 12], 'int32'))).data();
        assertClose(logits, tensor(e, 'logits'), tolerance(logitsModel(model.config, 12)), 'logits');
      });

      it('token log-probs within the tolerance of their reductions (batched scoring and per sequence)', async () => {
        const tol = tolerance(logprobsModel(model.config, 12));
        const items = e.ids.map((seq) => ({ promptIds: seq.slice(0, 1), responseIds: seq.slice(1) }));
        const batched = await scoreResponses(model.lm, items, { batchSize: 2 });
        assertClose(
          batched.flatMap((r) => [...r.logprobs]),
          tensor(e, 'logprobs'),
          tol,
          'batched log-probs',
        );
        const single = await tokenLogprobs(model.lm, e.ids[1]);
        assert.equal(single[0], null);
        assertClose(single.slice(1) as number[], tensor(e, 'logprobs').slice(11), tol, 'single log-probs');
      });

      it('last-position logits equal the full pass', async () => {
        const outs = tf.tidy(() => {
          const ids = tf.tensor2d(e.ids.flat(), [2, 12], 'int32');
          return [tf.slice(model.lm.forward(ids), [0, 11, 0], [2, 1, -1]), model.lm.forward(ids, { lastOnly: true })];
        });
        const [full, last] = await Promise.all(outs.map((t) => t.data()));
        tf.dispose(outs);
        // The same hidden states; only the LM head runs on B rows instead of B·T (another matrix
        // shape, which a BLAS kernel may sum in another order): one reduction over the hidden size.
        assertClose(last, full, tolerance({ dtype: 'float32', length: model.config.hiddenSize }), 'lastOnly logits');
      });
    });
  }
}
