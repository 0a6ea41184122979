import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateText } from '../../main/engine/generation/generate.js';
import { greedyAlongReferences } from '../../main/engine/generation/greedyAlong.js';
import { greedyContinuations } from '../../main/engine/generation/greedyBatch.js';
import { Model } from '../../main/engine/model/model.js';
import { gpuSkipReason } from '../helpers/gpuSkip.js';
import { defaultModelDir } from '../../main/resources.js';

// The competence gate's batched greedy decoding on the GPU: left-padded prefills start their rows
// at negative positions (the attention kernel must leave those queries out), then rows decode in
// one shared cache. It must give what generateText gives each sequence alone.
describe('greedy continuations on webgpu', { skip: await gpuSkipReason() }, () => {
  let model: Model;
  before(async () => (model = await Model.load(defaultModelDir(), { backend: 'webgpu' })));
  after(() => model?.dispose());

  it('rows padded by 16 positions or more get the tokens they get alone', async () => {
    const questions = ['Hi', 'How many minutes are in 3 hours?', 'What is the capital of Veloria, and what language do people speak there?', 'Mia has 12 stickers and buys 7 more. How many now?'];
    const ids = questions.map((q) => model.encodeChat({ messages: [{ role: 'user', content: q }], addGenerationPrompt: true }).ids);
    assert.ok(Math.max(...ids.map((x) => x.length)) - Math.min(...ids.map((x) => x.length)) >= 16, 'some row is padded by 16 or more');
    const solo = [];
    for (const x of ids) solo.push((await generateText(model.lm, model.tokenizer, x, { temperature: 0, maxNewTokens: 6 })).tokens);
    const together = await greedyContinuations(model.lm, ids.map((x) => ({ ids: x, maxNewTokens: 6 })), { stopTokenIds: [] });
    assert.deepEqual(together, solo);
  });

  it('answers read along references and decoded on from where they part are the answers decoded from scratch', async () => {
    const questions = ['How many minutes are in 3 hours?', 'Mia has 12 stickers and buys 7 more. How many now?', 'Hi', 'What is the capital of Veloria?'];
    const ids = questions.map((q) => model.encodeChat({ messages: [{ role: 'user', content: q }], addGenerationPrompt: true }).ids);
    const stop = model.generation.eosTokenIds;
    const want = await greedyContinuations(model.lm, ids.map((x) => ({ ids: x, maxNewTokens: 10 })), { stopTokenIds: stop });
    const other = (id: number) => (id + 1) % model.config.vocabSize;
    // Two parting at their third token, one never, one at its first.
    const refs = [want[0].map((id, k) => (k === 2 ? other(id) : id)), want[1].map((id, k) => (k === 2 ? other(id) : id)), want[2], want[3].map(other)];
    const got = await greedyAlongReferences(model.lm, ids.map((x, i) => ({ promptIds: x, referenceIds: refs[i], maxTokens: 10 })), { stopTokenIds: stop });
    assert.deepEqual(got.ids, want);
    assert.equal(got.diverged, 3);
  });
});
