import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { main } from '../../main/cli/main.js';
import { defaultBackendName } from '../../main/engine/backends/backend.js';
import { generateText } from '../../main/engine/generation/generate.js';
import { Model } from '../../main/engine/model/model.js';
import type { Io } from '../../main/cli/io.js';
import { expected, fixtureConfig, tensor } from '../helpers/fixtures.js';
import { logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { modelDir, ROOT } from '../helpers/paths.js';

async function run(argv: string[]): Promise<{ code: number; out: string; log: string }> {
  let out = '';
  let log = '';
  const io: Io = { out: (t) => (out += t), log: (l) => (log += l + '\n') };
  const code = await main(argv, io);
  return { code, out, log };
}

describe('clawloop logprobs', () => {
  it("--ids --json prints PyTorch's log-probs (null first)", async () => {
    const e = expected('llama-gqa');
    const r = await run(['logprobs', '--model', modelDir('llama-gqa'), '--ids', e.ids[0].join(','), '--json']);
    assert.equal(r.code, 0, r.log);
    const j = JSON.parse(r.out);
    assert.deepEqual(j.ids, e.ids[0]);
    assert.equal(j.logprobs[0], null);
    const ref = tensor(e, 'logprobs').slice(0, 11);
    assertClose(j.logprobs.slice(1), ref, tolerance(logprobsModel(fixtureConfig('llama-gqa'), 12)), 'log-probs');
    // The default backend: native where the addon loads, else wasm.
    assert.match(r.log, new RegExp(`tfjs backend '${defaultBackendName()}'`));
  });

  it('--text prints a row per token with id, log-prob and text', async () => {
    const r = await run(['logprobs', '--model', modelDir('qwen3-qknorm'), '--text', 'hello world']);
    assert.equal(r.code, 0, r.log);
    const rows = r.out.trimEnd().split('\n');
    assert.equal(rows.length, 5);
    assert.match(rows[0], /^\s+0\s+104\s+null\s+"h"$/);
    assert.match(rows[4], /^\s+4\s+286\s+-\d+\.\d{6}\s+" world"$/);
  });

  it('usage errors exit 2 with the usage; bad model folders exit 1 with the reason', async () => {
    let r = await run(['logprobs', '--model', modelDir('qwen3-qknorm')]);
    assert.equal(r.code, 2);
    assert.match(r.log, /give exactly one of --text or --ids[\s\S]*Usage: clawloop logprobs/);
    r = await run(['logprobs', '--model', modelDir('qwen3-qknorm'), '--ids', '1,x']);
    assert.equal(r.code, 2);
    assert.match(r.log, /--ids must be a comma-separated list of integers in \[0, 320\)/);
    r = await run(['logprobs', '--model', '/does/not/exist', '--text', 'x']);
    assert.equal(r.code, 1);
    assert.match(r.log, /model folder '\/does\/not\/exist' does not exist/);
    r = await run(['logprobs', '--bogus']);
    assert.equal(r.code, 2);
    r = await run(['frobnicate']);
    assert.equal(r.code, 2);
    assert.match(r.log, /unknown command 'frobnicate'/);
  });
});

describe('clawloop generate', () => {
  it('greedy --raw generation prints the continuation the engine computes', async () => {
    const r = await run([
      'generate',
      '--model',
      modelDir('llama-gqa'),
      '--prompt',
      'hello',
      '--raw',
      '--temperature',
      '0',
      '--max-tokens',
      '5',
    ]);
    assert.equal(r.code, 0, r.log);
    const model = await Model.load(modelDir('llama-gqa'));
    const prompt = model.tokenizer.encode('hello');
    const ref = await generateText(model.lm, model.tokenizer, prompt, {
      temperature: 0,
      maxNewTokens: 5,
      stopTokenIds: model.generation.eosTokenIds,
    });
    model.dispose();
    assert.equal(r.out, ref.text + '\n');
    assert.match(r.log, new RegExp(`${prompt.length} prompt tokens, ${ref.tokens.length} generated \\(${ref.finishReason}\\)`));
  });

  it('the same seed prints the same text, through the chat template', async () => {
    const args = ['generate', '--model', modelDir('qwen3-qknorm'), '--prompt', 'hi', '--max-tokens', '12', '--seed', '4'];
    const [a, b] = [await run(args), await run(args)];
    assert.equal(a.code, 0, a.log);
    assert.equal(a.out, b.out);
    assert.match(a.log, /\d+ prompt tokens, \d+ generated/);
  });

  it('invalid options are usage errors', async () => {
    const r = await run(['generate', '--model', modelDir('qwen3-qknorm'), '--prompt', 'hi', '--top-p', '2']);
    assert.equal(r.code, 2);
    assert.match(r.log, /--top-p must be a number > ?=? ?.* and <= 1; got '2'/);
  });
});

describe('bin/clawloop.js', () => {
  it('runs as a command (npx clawloop)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'bin', 'clawloop.js'), '--help']);
    assert.match(stdout, /Usage: clawloop <command>/);
    assert.match(stdout, /logprobs/);
    assert.match(stdout, /generate/);
  });
});

describe('clawloop doctor', () => {
  it('reports the CPU kernels and the GPU adapter, or why there is none and what to install', async () => {
    const r = await run(['doctor', '--json']);
    assert.equal(r.code, 0);
    const { cpu, gpu } = JSON.parse(r.out);
    assert.ok(cpu.cores >= 1 && typeof cpu.defaultBackend === 'string');
    assert.ok(cpu.native.loaded === true || cpu.native.reason.length > 0);
    assert.ok(gpu.requested === 'hardware' || gpu.requested === 'software');
    if (gpu.usable) assert.ok(gpu.adapter && gpu.adapter.maxStorageBufferBindingSize > 0, JSON.stringify(gpu));
    else assert.ok(gpu.adapter === null && gpu.problems.length > 0, `no adapter and no reason: ${JSON.stringify(gpu)}`);
    const text = await run(['doctor']);
    assert.match(text.out, /^CPU: /);
    assert.match(text.out, /--backend webgpu: (usable|not usable)/);
  });
});
