/**
 * The example prompts a new conversation offers (main/protocol/bundledModel.ts) are ones the
 * bundled model answers right (issue 42 walk, finding 4: two of three were answered wrong). Greedy,
 * so the check is deterministic for the committed weights; the sampled figures come from
 * `node dist/scripts/default-model/examplePrompts.js`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Model } from '../../main/engine/model/model.js';
import { defaultModelDir } from '../../main/resources.js';
import { CLAWLOOP_MINI_EXAMPLE_PROMPTS as EXAMPLE_PROMPTS } from '../../main/protocol/bundledModel.js';
import { answer, isRight } from '../../scripts/default-model/examplePrompts.js';

describe('the first-launch example prompts', () => {
  let model: Model;
  before(async () => (model = await Model.load(defaultModelDir())));
  after(() => model?.dispose());

  it('are three, each answered right by the bundled model (greedy)', async () => {
    assert.equal(EXAMPLE_PROMPTS.length, 3);
    const wrong: string[] = [];
    for (const e of EXAMPLE_PROMPTS) {
      const text = await answer(model, e.prompt);
      if (!isRight(e, text)) wrong.push(`${e.prompt} (expected ${e.answer})\n→ ${text}`);
    }
    assert.deepEqual(wrong, []);
  });

  it('marks a wrong answer wrong: the walk\'s "200 centimeters" for 2 km', () => {
    const km = { prompt: 'Convert 2 km to meters.', answer: 2000 };
    assert.equal(isRight(km, '2 × 100 = 200. **Result: 200 centimeters**'), false);
    assert.equal(isRight(km, '2 × 1000 = 2000. **Result: 2000 meters**'), true);
  });
});
