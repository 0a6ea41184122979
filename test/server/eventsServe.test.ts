import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultBackendName } from '../../main/engine/backends/backend.js';
import { defaultModelDir } from '../../main/resources.js';
import { EventStreamClient } from '../helpers/eventStream.js';
import { exited, startServe, type ServeProcess } from '../helpers/serveProcess.js';

/**
 * Issue 10's "done when": `curl -N /api/events` against `clawloop serve` with the bundled model
 * shows the whole loop while a conversation with 👍/👎 and a hint is held, and a reconnect with
 * Last-Event-ID replays exactly what was missed.
 */
describe('clawloop serve with the bundled model: the event stream shows the whole learning loop', () => {
  let t: ServeProcess;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-events-serve-'));
  before(async () => (t = await startServe(defaultModelDir(), dataDir, ['--batch-size', '2', '--feedback-wait', '0'])));
  after(async () => {
    t.child.kill('SIGTERM');
    // The core writes into the folder while it shuts down (its lock says so): remove it once exited.
    await exited(t.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function say(content: string, history: Array<{ role: string; content: string }>): Promise<string> {
    history.push({ role: 'user', content });
    const res = await fetch(`${t.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-id': 'events-e2e', 'x-turn-type': 'main' },
      body: JSON.stringify({ messages: history, max_tokens: 24, seed: 1 }),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { id: string; choices: Array<{ message: { content: string } }> };
    history.push({ role: 'assistant', content: body.choices[0].message.content });
    return body.id;
  }
  const feedback = (body: object) =>
    fetch(`${t.url}/feedback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('reports the backend the model runs on (the default one chosen here), and no restart needed', async () => {
    const info = (await (await fetch(`${t.origin}/api/info`)).json()) as { model: { backend: string } };
    assert.equal(info.model.backend, defaultBackendName());
    const settings = (await (await fetch(`${t.origin}/api/settings`)).json()) as {
      restart_required: boolean;
      running: { backend: string };
    };
    assert.equal(settings.running.backend, defaultBackendName());
    assert.equal(settings.restart_required, false);
  });

  it('turn.captured, feedback.received, sample.judged, train.step, checkpoint.saved and adapter.live, in order, replayable', async () => {
    const live = await EventStreamClient.open(t.origin);
    const history: Array<{ role: string; content: string }> = [];
    const a = await say('How many minutes are in 3 hours?', history);
    assert.equal((await feedback({ completion_id: a, rating: 'up' })).status, 200);
    const b = await say('What is 12 + 30?', history);
    assert.equal((await feedback({ completion_id: b, rating: 'down', hint: 'show the working step by step' })).status, 200);
    const seenBefore = await live.waitFor((e) => e.event === 'turn.captured' && e.data.turn_id === b, 'the second turn');
    await live.close(); // disconnected: everything from here on is "missed"
    const back = await EventStreamClient.open(t.origin, { lastEventId: seenBefore.id });
    const liveEvent = await back.waitFor(
      (e) => e.event === 'adapter.live' && e.data.reason === 'trained',
      'the trained adapter going live',
      240_000,
    );
    await back.close();

    const all = [...live.events.filter((e) => e.id <= seenBefore.id), ...back.events];
    const names = new Set(all.map((e) => e.event));
    for (const n of ['turn.captured', 'feedback.received', 'sample.judged', 'train.step', 'checkpoint.saved', 'adapter.live'])
      assert.ok(names.has(n), `${n} in ${[...names]}`);
    const ids = all.map((e) => e.id);
    assert.deepEqual(
      ids,
      [...ids].sort((x, y) => x - y),
      'ids in order',
    );
    assert.equal(new Set(ids).size, ids.length, 'no event twice, none lost across the reconnect');
    assert.equal(back.events[0].id, seenBefore.id + 1, 'the replay starts right after the last event seen');
    const step = all.find((e) => e.event === 'train.step')!;
    assert.deepEqual(new Set(step.data.turn_ids as string[]), new Set([a, b]));
    const hint = all.find((e) => e.event === 'feedback.received' && e.data.kind === 'hint')!;
    assert.equal(hint.data.text, 'show the working step by step');
    const saved = all.find((e) => e.event === 'checkpoint.saved')!;
    assert.equal(liveEvent.data.checkpoint_id, saved.data.checkpoint_id);
    assert.equal(liveEvent.data.version, saved.data.version);
    // The next answer is served by the new version.
    const c = await fetch(`${t.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }),
    });
    assert.equal(c.headers.get('x-clawloop-adapter-version'), String(liveEvent.data.version));
  });
});
