import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { checkpointsRoot, cleanupCheckpointTemp, saveCheckpoint } from '../../main/rl/checkpointFiles.js';
import { loadCheckpointAdapter } from '../../main/rl/loadCheckpointAdapter.js';
import { Trainer } from '../../main/rl/trainer.js';
import type { TrainerEvent } from '../../main/rl/trainerEvents.js';
import { openDatabase, type Db } from '../../main/store/database.js';
import { LearnStore } from '../../main/store/learnStore.js';
import { modelDir } from '../helpers/paths.js';
import { waitFor } from '../helpers/testServer.js';
import { ratedTurn } from '../helpers/ratedTurn.js';

describe('trainer guards', () => {
  let dir: string;
  let db: Db;
  let store: LearnStore;
  let trainer: Trainer;
  const events: TrainerEvent[] = [];
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-trainer-'));
    db = openDatabase(path.join(dir, 'clawloop.db'));
    store = new LearnStore(db);
    trainer = await Trainer.start({
      modelDir: modelDir('qwen3-qknorm'),
      dataDir: dir,
      store,
      configPatch: { method: 'rl', batch_size: 2, kl_coef: 0, feedback_wait_s: 0 },
      emit: (e) => events.push(e),
    });
    void trainer.run();
  });
  after(async () => {
    await trainer.stop();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a step whose loss is not finite is skipped and logged; the adapter is unchanged and the samples are dropped', async () => {
    const ids = [ratedTurn(store, NaN, 'up'), ratedTurn(store, NaN, 'down')];
    trainer.wake();
    const s = await waitFor(() => (trainer.status().step === 1 ? trainer.status() : null), 'the skipped step');
    assert.equal(s.adapter_version, 0);
    assert.equal(s.last_step!.skipped, true);
    assert.match(s.last_step!.skip_reason!, /not finite/);
    assert.deepEqual(store.checkpoints(), []);
    assert.ok(!events.some((e) => e.type === 'adapter'), 'no adapter was published');
    assert.ok(events.some((e) => e.type === 'log' && /step 1 skipped/.test(e.line)));
    for (const id of ids) assert.equal(store.samplesOfTurn(id)[0].status, 'dropped');
  });

  it('the next good batch trains normally', async () => {
    ratedTurn(store, -1.5, 'up');
    ratedTurn(store, -0.5, 'down');
    trainer.wake();
    const s = await waitFor(() => (trainer.status().step === 2 ? trainer.status() : null), 'step 2');
    assert.deepEqual([s.adapter_version, s.last_step!.skipped], [1, false]);
    assert.ok(events.some((e) => e.type === 'adapter' && e.version === 1));
  });
});

describe('checkpoint files', () => {
  it('a save that fails midway leaves nothing behind; leftovers of a crash are removed at start', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-ckpt-'));
    const model = await Model.load(modelDir('qwen3-qknorm'));
    const adapter = LoraAdapter.create(model.config, { r: 2 }, 1);
    const opt = new AdamW(adapter.variables());
    const broken = {
      save: () => {
        throw new Error('disk full');
      },
    } as unknown as AdamW;
    await assert.rejects(() => saveCheckpoint(dir, 'step-000001', adapter, broken, {}, 'm'), /disk full/);
    assert.deepEqual(fs.readdirSync(checkpointsRoot(dir)), [], 'no checkpoint and no temporary folder');
    await saveCheckpoint(dir, 'step-000001', adapter, opt, { step: 1 }, 'm');
    assert.deepEqual(fs.readdirSync(checkpointsRoot(dir)), ['step-000001']);
    const loaded = loadCheckpointAdapter(dir, 'step-000001', model.config);
    assert.equal(loaded.config.r, 2);
    fs.mkdirSync(path.join(checkpointsRoot(dir), '.tmp-step-000002-123-456'));
    // A folder whose row retention already deleted when a kill stopped it from deleting the folder.
    fs.mkdirSync(path.join(checkpointsRoot(dir), 'step-000000'));
    assert.equal(cleanupCheckpointTemp(dir, new Set(['step-000001'])), 2);
    assert.deepEqual(fs.readdirSync(checkpointsRoot(dir)), ['step-000001']);
    [adapter, loaded, opt, model].forEach((x) => x.dispose());
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
