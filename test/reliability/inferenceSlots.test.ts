import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatGenerationRequest } from '../../main/engine/generation/chatGeneration.js';
import { InferenceError } from '../../main/server/inferenceEngine.js';
import { WorkerInferenceEngine } from '../../main/workers/inference/client.js';
import { modelDir } from '../helpers/paths.js';

const ask = (content: unknown, extra: Partial<ChatGenerationRequest> = {}): ChatGenerationRequest => ({
  messages: [{ role: 'user', content: 'hello' }],
  maxTokens: 2,
  temperature: 0,
  templateVars: { note: content },
  ...extra,
});

describe('the inference engine: no request can leak a slot or stop the worker (issue 15, findings 1 and 2)', () => {
  let engine: WorkerInferenceEngine;
  before(async () => (engine = await WorkerInferenceEngine.start({ modelDir: modelDir('qwen3-qknorm'), maxBatch: 2, maxQueue: 16 })));
  after(() => engine.close({ abort: true }));

  it('a request that cannot be handed to the worker fails alone (400) and frees its slot, even when queued behind running ones', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep]; // structured cloning overflows the stack on this
    const signal = new AbortController().signal;
    const running = [engine.generate(ask('ok', { maxTokens: 6 }), { signal }), engine.generate(ask('ok', { maxTokens: 6 }), { signal })];
    const bad = Array.from({ length: 8 }, () =>
      engine.generate(ask(deep), { signal }).then(
        () => null,
        (e: Error) => e,
      ),
    );
    const errors = await Promise.all(bad);
    await Promise.all(running);
    for (const e of errors) {
      assert.ok(e instanceof InferenceError, String(e));
      assert.equal(e.status, 400);
      assert.match(e.message, /could not be handed to the model/);
    }
    assert.deepEqual(engine.load, { running: 0, queued: 0 });
    const after = await engine.generate(ask('fine'), { signal });
    assert.ok(after.responseIds.length > 0);
  });

  it("a prompt over the window is refused with the worker's own token count, not one read back from the message", async () => {
    const long = ask('', { messages: [{ role: 'user', content: 'word '.repeat(3000) }] });
    const err = await engine.prepare(long).then(
      () => null,
      (e: Error) => e,
    );
    assert.ok(err instanceof InferenceError, String(err));
    assert.equal(err.code, 'context_length_exceeded');
    assert.ok(Number.isInteger(err.promptTokens) && err.promptTokens! > 2048, `promptTokens: ${err.promptTokens}`);
    assert.match(err.message, new RegExp(`resulted in ${err.promptTokens} tokens`));
  });

  it('an adapter the worker cannot load is refused with the reason, and the last good version keeps serving', async () => {
    const bad = new Map([['base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight', new Float32Array(3)]]);
    await assert.rejects(
      engine.setAdapter({ version: 7, lora: { r: 8, alpha: 16, dropout: 0, targets: ['q_proj'], useRslora: false }, tensors: bad }),
      /adapter version 7 could not be loaded for serving/,
    );
    assert.equal(engine.adapterVersion, 0);
    const r = await engine.generate(ask('still here'), { signal: new AbortController().signal });
    assert.ok(r.responseIds.length > 0);
  });
});
