/**
 * The trainer worker thread: judging, sample building, optimizer steps and checkpoints run here,
 * on the trainer's own copy of the base model and its own database connection, so serving never
 * waits for training.
 */
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { Trainer } from '../../rl/trainer.js';
import type { TrainerEvent } from '../../rl/trainerEvents.js';
import { TrainingConfigError } from '../../rl/trainingConfig.js';
import { openDatabase } from '../../store/database.js';
import { LearnStore } from '../../store/learnStore.js';
import type { AdapterPayload } from '../inference/messages.js';
import type { FromTrainerWorker, ToTrainerWorker, TrainerWorkerData } from './messages.js';

if (!parentPort) throw new Error('main/workers/trainer/worker.js must run as a worker thread');
const port = parentPort;
const data = workerData as TrainerWorkerData;

/** Posts a message, transferring adapter tensors instead of copying them. */
function send(m: FromTrainerWorker): void {
  const adapter = 'adapter' in m ? (m.adapter as AdapterPayload) : null;
  const transfer = adapter?.tensors ? [...adapter.tensors.values()].map((t) => t.buffer as ArrayBuffer) : [];
  port.postMessage(m, transfer);
}

function onEvent(e: TrainerEvent): void {
  if (e.type === 'adapter') {
    send({
      type: 'adapter',
      adapter: { version: e.version, lora: e.lora, tensors: e.tensors },
      checkpointId: e.checkpointId,
      reason: e.reason,
    });
  } else send(e);
}

const db = openDatabase(path.join(data.dataDir, 'clawloop.db'));
let trainer: Trainer;
try {
  trainer = await Trainer.start({
    modelDir: data.modelDir,
    dataDir: data.dataDir,
    backend: data.backend,
    store: new LearnStore(db),
    configPatch: data.configPatch,
    resetConfig: data.resetConfig,
    emit: onEvent,
  });
} catch (err) {
  send({ type: 'fatal', message: (err as Error).message });
  db.close();
  throw err;
}
const a = await trainer.currentAdapter();
send({
  type: 'ready',
  adapter: { version: a.version, lora: a.lora, tensors: a.tensors },
  status: trainer.status(),
  config: trainer.trainingConfig,
});

async function answer(id: number, f: () => Promise<unknown>): Promise<void> {
  try {
    send({ type: 'reply', id, ok: true, value: await f() });
  } catch (err) {
    const e = err as Error;
    const te = err instanceof TrainingConfigError ? err : null;
    send({ type: 'reply', id, ok: false, status: te?.status ?? 500, field: te?.field ?? null, message: e.message });
  }
}

port.on('message', (m: ToTrainerWorker) => {
  switch (m.type) {
    case 'wake':
      trainer.wake();
      break;
    case 'setConfig':
      void answer(m.id, () => trainer.setConfig(m.patch));
      break;
    case 'setPaused':
      void answer(m.id, () => trainer.setPaused(m.paused));
      break;
    case 'rollback':
      void answer(m.id, () => trainer.rollback(m.checkpoint));
      break;
    case 'stop':
      void trainer.stop().then(() => {
        db.close();
        send({ type: 'stopped' });
        port.close();
      });
      break;
  }
});

await trainer.run();
