import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspectModelFolder, ModelFolderError } from '../../main/engine/formats/modelFolder.js';
import { Model } from '../../main/engine/model/model.js';
import { BF16_SHARDED, modelDir } from '../helpers/paths.js';

/** A folder that is not a model ClawLoop can serve: the error names the file and what is wrong, before any weight is loaded. */
describe('model folders: what is refused, and how it is said', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-folder-'));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** A copy of the sharded BF16 fixture, changed by `edit`. */
  function broken(name: string, edit: (dir: string) => void): string {
    const dir = path.join(tmp, name);
    fs.cpSync(modelDir(BF16_SHARDED), dir, { recursive: true });
    edit(dir);
    return dir;
  }

  /** Both the inspection (HTTP thread) and the loader refuse it with the same message. */
  async function refused(dir: string, pattern: RegExp): Promise<void> {
    assert.throws(() => inspectModelFolder(dir), (err: Error) => err instanceof ModelFolderError && pattern.test(err.message));
    await assert.rejects(Model.load(dir), pattern);
  }

  it('accepts the sharded BF16 checkpoint and reports its dtype and size', () => {
    const s = inspectModelFolder(modelDir(BF16_SHARDED));
    assert.deepEqual(s.dtypes, ['BF16']);
    assert.equal(s.architecture, 'qwen3');
    assert.ok(s.weightBytes > 1e6);
  });

  it('a missing config.json', async () => {
    const dir = broken('no-config', (d) => fs.rmSync(path.join(d, 'config.json')));
    await refused(dir, /config\.json is missing/);
  });

  it('an unsupported architecture lists the supported ones', async () => {
    const dir = broken('gpt2', (d) => {
      const cfg = JSON.parse(fs.readFileSync(path.join(d, 'config.json'), 'utf8'));
      fs.writeFileSync(path.join(d, 'config.json'), JSON.stringify({ ...cfg, architectures: ['GPT2LMHeadModel'], model_type: 'gpt2' }));
    });
    await refused(dir, /gpt2|GPT2LMHeadModel/i);
  });

  it('a truncated shard (an interrupted download) names the shard', async () => {
    const dir = broken('truncated', (d) => {
      const shard = path.join(d, 'model-00002-of-00003.safetensors');
      fs.truncateSync(shard, fs.statSync(shard).size - 1000);
    });
    await refused(dir, /model-00002-of-00003\.safetensors is truncated: .*Fetch the file again/);
  });

  it('a quantized (integer) weight names the tensor, its file and what to use instead', async () => {
    const dir = broken('int8', (d) => {
      const shard = path.join(d, 'model-00003-of-00003.safetensors');
      const buf = fs.readFileSync(shard);
      const n = Number(buf.readBigUInt64LE(0));
      const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
      const name = Object.keys(header).find((k) => k.endsWith('_proj.weight'))!;
      const [s0] = header[name].data_offsets;
      const count = header[name].shape[0] * header[name].shape[1];
      header[name].dtype = 'I8'; // the same shape, one byte per weight
      header[name].data_offsets = [s0, s0 + count];
      const text = Buffer.from(JSON.stringify(header).padEnd(n, ' '));
      fs.writeFileSync(shard, Buffer.concat([buf.subarray(0, 8), text, buf.subarray(8 + n)]));
    });
    await refused(dir, /'model\.layers\.\d+\.\w+\.\w+_proj\.weight' in .*model-00003-of-00003\.safetensors is I8; weights must be F32, F16 or BF16 \(a quantized checkpoint\? use the original BF16 or F16 release\)/);
  });

  it('an unknown dtype (FP8) says which dtypes ClawLoop reads', async () => {
    const dir = broken('fp8', (d) => {
      const shard = path.join(d, 'model-00001-of-00003.safetensors');
      const buf = fs.readFileSync(shard);
      const n = Number(buf.readBigUInt64LE(0));
      const text = buf.subarray(8, 8 + n).toString('utf8').replace('"BF16"', '"F8_E4M3"');
      fs.writeFileSync(shard, Buffer.concat([buf.subarray(0, 8), Buffer.from(text), buf.subarray(8 + n)]));
    });
    await refused(dir, /model-00001-of-00003\.safetensors: tensor '.*' has dtype 'F8_E4M3', which ClawLoop cannot read/);
  });
});
