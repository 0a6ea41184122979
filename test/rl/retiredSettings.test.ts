import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_TRAINING_CONFIG } from '../../main/protocol/training.js';
import {
  dropRetiredSettings,
  mergeTrainingConfig,
  modelTrainingDefaults,
  RETIRED_SETTINGS,
  TRAINING_DEFAULTS_FILE,
  TrainingConfigError,
} from '../../main/rl/trainingConfig.js';

describe('settings of experiments that were not shipped', () => {
  it('are no longer settings: a change that names one is refused with its name', () => {
    for (const key of Object.keys(RETIRED_SETTINGS)) {
      assert.ok(!(key in DEFAULT_TRAINING_CONFIG), key);
      assert.throws(
        () => mergeTrainingConfig(DEFAULT_TRAINING_CONFIG, { [key]: 1 }),
        (err: unknown) => err instanceof TrainingConfigError && err.field === key,
      );
    }
  });

  it('a stored configuration that names them loads without them, and says which were on', () => {
    const stored = { ...DEFAULT_TRAINING_CONFIG, learning_rate: 0.002, replay_samples: 2, lr_backoff: null };
    const { config, dropped } = dropRetiredSettings(stored);
    assert.deepEqual(mergeTrainingConfig(DEFAULT_TRAINING_CONFIG, config), { ...DEFAULT_TRAINING_CONFIG, learning_rate: 0.002 });
    assert.equal(dropped.length, 1, 'lr_backoff was off (null): nothing to say');
    assert.match(dropped[0], /replay_samples = 2 was removed \(not shipped: docs\/experiments\/011-gate-per-family\.md\)/);
    assert.deepEqual(dropRetiredSettings(null), { config: null, dropped: [] });
  });

  it("a model folder's recommendations that name them load without them", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-retired-'));
    try {
      fs.writeFileSync(path.join(dir, TRAINING_DEFAULTS_FILE), JSON.stringify({ ppo_epochs: 3, replay_samples: 0, lr_backoff: 0.5 }));
      assert.deepEqual(modelTrainingDefaults(dir), { ...DEFAULT_TRAINING_CONFIG, ppo_epochs: 3 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
