import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Model } from '../../main/engine/index.js';
import { DEFAULT_TRAINING_CONFIG } from '../../main/protocol/training.js';
import { buildSamples } from '../../main/rl/sampleBuilder.js';
import { DEFAULT_JUDGE_PROMPTS } from '../../main/rl/judgePrompts.js';
import { openDatabase } from '../../main/store/database.js';
import { LearnStore } from '../../main/store/learnStore.js';
import { modelDir } from '../helpers/paths.js';
import { ratedTurn } from '../helpers/ratedTurn.js';

describe("a rejected judge's hint does not train", () => {
  it("👍 with the judge's hint rejected trains on the rating alone; not rejected, the judge's hint trains", async () => {
    const db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-reject-')), 'c.db'));
    const store = new LearnStore(db);
    const id = ratedTurn(store, -0.25, 'up');
    const turn = { ...store.turns.getTurn(id)!, nextState: { role: 'user', text: 'Use headings and a numbered list.' } } as ReturnType<
      typeof store.turns.getTurn
    > &
      object;
    const model = await Model.load(modelDir('qwen3-qknorm'));
    try {
      const built = async (judgeHintRejected: boolean) => {
        // Every vote: a score, then a hint (the PRM reads the score, the hint judge the hint).
        const judge = {
          description: 'scripted',
          complete: async () => '\\boxed{1}\n[HINT_START]Format the answer with a heading.[HINT_END]',
        };
        const config = { ...DEFAULT_TRAINING_CONFIG, method: 'combine' as const };
        const ctx = { model, policy: null, policyVersion: 0, judge, prompts: DEFAULT_JUDGE_PROMPTS, config };
        const feedback = { rating: 'up' as const, hint: null, judgeHintRejected, updatedAt: 1 };
        const r = await buildSamples(ctx, { turn, feedback, judgements: [], firstWithNextState: true });
        return r.samples.map((s) => [s.kind, s.reward, s.hintSource]);
      };
      assert.deepEqual(await built(false), [['both', 1, 'judge']]);
      assert.deepEqual(await built(true), [['rl', 1, null]]);
    } finally {
      model.dispose();
      db.close();
    }
  });
});
