/**
 * A worker for workerRpc.test.ts that does what its `workerData` says: start ('ready'), refuse to
 * ('fatal'), throw or exit while starting; it logs a line before its ready message; once ready it echoes `echo` requests, throws on `crash`,
 * and leaves on `quit`. An `ignore` request is never answered.
 */
import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort!;
const mode = workerData as 'ready' | 'fatal' | 'throw' | 'exit';

if (mode === 'throw') throw new Error('no model here');
if (mode === 'exit') process.exit(3);
if (mode === 'fatal') port.postMessage({ type: 'fatal', message: 'the model folder is empty' });
else {
  port.postMessage({ type: 'log', line: 'loading' });
  port.postMessage({ type: 'ready', pid: 42 });
}

port.on('message', (m: { type: string; id?: number; value?: unknown }) => {
  if (m.type === 'echo') port.postMessage({ type: 'reply', id: m.id, value: m.value });
  else if (m.type === 'crash') throw new Error('out of memory');
  else if (m.type === 'quit') port.close();
});
