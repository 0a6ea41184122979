import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerRpc, WorkerStartError } from '../../main/workers/workerRpc.js';

type To = { type: 'echo' | 'ignore'; id: number; value?: unknown } | { type: 'crash' } | { type: 'quit' };
type From =
  | { type: 'log'; line: string }
  | { type: 'ready'; pid: number }
  | { type: 'fatal'; message: string }
  | { type: 'reply'; id: number; value: unknown };

/** A client of test/workers/scriptedWorker.ts that answers its pending calls from `reply` messages. */
function start(mode: string, onLost?: (reason: string) => void, seen: From[] = []): WorkerRpc<To, From> {
  const rpc: WorkerRpc<To, From> = new WorkerRpc<To, From>({
    url: new URL('./scriptedWorker.js', import.meta.url),
    workerData: mode,
    name: 'the test worker',
    onMessage: (m) => {
      seen.push(m);
      if (m.type === 'reply') rpc.resolve(m.id, m.value);
    },
    onLost,
    lostError: (reason) => new Error(`lost: ${reason}`),
  });
  return rpc;
}

describe('WorkerRpc', () => {
  it('resolves the handshake with the ready message and answers calls by id', async () => {
    const seen: From[] = [];
    const rpc = start('ready', () => assert.fail('a stopped worker is not lost'), seen);
    assert.deepEqual(await rpc.ready, { type: 'ready', pid: 42 });
    assert.deepEqual(seen, [{ type: 'log', line: 'loading' }], 'a message before the handshake is passed on');
    assert.equal(rpc.isReady, true);
    const answers = await Promise.all([
      rpc.call((id) => ({ type: 'echo', id, value: 'a' })),
      rpc.call((id) => ({ type: 'echo', id, value: [1, 2] })),
    ]);
    assert.deepEqual(answers, ['a', [1, 2]]);
    assert.equal(rpc.resolve(999, 'x'), false, 'an id nobody waits for is reported');
    await rpc.stop({ type: 'quit' });
    assert.equal(rpc.isReady, false);
  });

  for (const [mode, kind, detail, message] of [
    ['fatal', 'fatal', 'the model folder is empty', 'the test worker failed to start: the model folder is empty'],
    ['throw', 'error', 'no model here', 'the test worker failed to start: no model here'],
    ['exit', 'exit', '3', 'the test worker exited with code 3 while starting'],
  ] as const) {
    it(`rejects the handshake when the worker ${mode === 'fatal' ? 'reports fatal' : mode + 's'} while starting`, async () => {
      const rpc = start(mode, () => assert.fail('a worker that never started is not lost'));
      const err = await rpc.ready.then(
        () => assert.fail('the handshake resolved'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof WorkerStartError);
      assert.deepEqual([err.kind, err.detail, err.message], [kind, detail, message]);
      // A fatal worker is terminated (it would otherwise keep listening forever): it has exited.
      await rpc.terminate();
    });
  }

  it('rejects every pending call and reports the loss once when the worker crashes', async () => {
    const lost: string[] = [];
    const rpc = start('ready', (reason) => lost.push(reason));
    await rpc.ready;
    const pending = [rpc.call((id) => ({ type: 'ignore', id })), rpc.call((id) => ({ type: 'ignore', id }))];
    assert.equal(rpc.post({ type: 'crash' }), null);
    for (const p of pending) await assert.rejects(p, { message: 'lost: the test worker crashed: out of memory' });
    await rpc.terminate();
    assert.deepEqual(lost, ['the test worker crashed: out of memory']);
    assert.equal(rpc.isReady, false);
    await assert.rejects(
      rpc.call((id) => ({ type: 'echo', id })),
      { message: 'lost: the test worker is not running' },
    );
    assert.match(rpc.post({ type: 'quit' })?.message ?? '', /is not running/);
  });

  it('rejects pending calls without reporting a loss when the client terminates the worker', async () => {
    const rpc = start('ready', () => assert.fail('a terminated worker is not lost'));
    await rpc.ready;
    const pending = rpc.call((id) => ({ type: 'ignore', id }));
    await rpc.terminate();
    await assert.rejects(pending, /lost: the test worker exited unexpectedly \(code 1\)/);
  });

  it('rejects a call whose message cannot be cloned, through postFailed', async () => {
    const rpc = start('ready');
    await rpc.ready;
    const call = rpc.call(
      (id) => ({ type: 'echo', id, value: () => 1 }),
      (err) => new Error(`not sent: ${err.name}`),
    );
    await assert.rejects(call, { message: 'not sent: DataCloneError' });
    await rpc.stop({ type: 'quit' });
  });
});
