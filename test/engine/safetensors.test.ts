import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readHeader, readSafetensors, SafetensorsError } from '../../main/engine/formats/safetensors.js';
import { writeSafetensors } from '../../main/engine/formats/safetensorsWrite.js';
import { WeightFiles } from '../../main/engine/formats/weightFiles.js';
import { modelDir } from '../helpers/paths.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-st-'));

/** A file built byte by byte, independent of our writer. */
function handMade(file: string, header: object, data: Buffer): void {
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  fs.writeFileSync(file, Buffer.concat([len, json, data]));
}

describe('safetensors', () => {
  it('reads a hand-made file with F32, F16 and BF16 tensors', () => {
    const dir = tmp();
    const f32 = Buffer.from(new Float32Array([1.5, -2, 3.25]).buffer);
    const f16 = Buffer.from(new Uint16Array([0x3c00, 0xc000, 0x3555, 0x7c00]).buffer); // 1, -2, ~0.333, +inf
    const bf16 = Buffer.from(new Uint16Array([0x3f80, 0xbf00, 0x4049]).buffer); // 1, -0.5, 3.140625
    handMade(
      path.join(dir, 'x.safetensors'),
      {
        __metadata__: { format: 'pt' },
        a: { dtype: 'F32', shape: [3], data_offsets: [0, 12] },
        b: { dtype: 'F16', shape: [2, 2], data_offsets: [12, 20] },
        c: { dtype: 'BF16', shape: [3], data_offsets: [20, 26] },
      },
      Buffer.concat([f32, f16, bf16]),
    );
    const { tensors, metadata } = readSafetensors(path.join(dir, 'x.safetensors'));
    assert.deepEqual(metadata, { format: 'pt' });
    assert.deepEqual([...tensors.get('a')!.data], [1.5, -2, 3.25]);
    const b = tensors.get('b')!;
    assert.deepEqual(b.shape, [2, 2]);
    assert.deepEqual([b.data[0], b.data[1], b.data[3]], [1, -2, Infinity]);
    assert.ok(Math.abs(b.data[2] - 0.33325) < 1e-4);
    assert.deepEqual([...tensors.get('c')!.data], [1, -0.5, 3.140625]);
    fs.rmSync(dir, { recursive: true });
  });

  it('round-trips through the writer, including F16/BF16 rounding to nearest even', () => {
    const dir = tmp();
    const file = path.join(dir, 'y.safetensors');
    const data = Float32Array.from([0, -0, 1, 1 / 3, 65504, 1e-7, -123.456, 2 ** -24]);
    writeSafetensors(
      file,
      [
        { name: 'f32', shape: [8], data },
        { name: 'f16', shape: [2, 4], data, dtype: 'F16' },
        { name: 'bf16', shape: [8], data, dtype: 'BF16' },
      ],
      { note: 'hi' },
    );
    const { tensors, metadata } = readSafetensors(file);
    assert.equal(metadata.note, 'hi');
    assert.deepEqual(tensors.get('f32')!.data, data);
    const f16 = tensors.get('f16')!.data;
    data.forEach((x, i) => assert.ok(Math.abs(f16[i] - x) <= Math.max(Math.abs(x) * 2 ** -11, 2 ** -25), `f16[${i}] ${f16[i]} vs ${x}`));
    assert.equal(f16[7], 2 ** -24, 'smallest subnormal survives');
    const bf = tensors.get('bf16')!.data;
    data.forEach((x, i) => assert.ok(Math.abs(bf[i] - x) <= Math.abs(x) * 2 ** -8, `bf16[${i}] ${bf[i]} vs ${x}`));
    // the data section starts 8-byte aligned
    const n = Number(fs.readFileSync(file).readBigUInt64LE(0));
    assert.equal((8 + n) % 8, 0);
    fs.rmSync(dir, { recursive: true });
  });

  it('opens sharded folders through the index', () => {
    const w = WeightFiles.open(modelDir('llama-gqa'));
    assert.ok(w.names().includes('lm_head.weight'));
    assert.ok(w.get('model.layers.1.mlp.down_proj.weight')!.file.endsWith('-of-00002.safetensors'));
    assert.equal(w.read('model.norm.weight').length, 64);
    w.close();
  });

  it('reports corrupt files, bad offsets, missing shards and wrong sizes clearly', () => {
    const dir = tmp();
    const bad = path.join(dir, 'bad.safetensors');
    fs.writeFileSync(bad, Buffer.from('not a safetensors file at all'));
    assert.throws(() => readHeader(bad), /header length .* is invalid/);
    handMade(bad, { a: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, Buffer.alloc(8));
    assert.throws(() => readHeader(bad), /outside the file/);
    handMade(bad, { a: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, Buffer.alloc(8));
    assert.throws(() => readHeader(bad), /needs 12 bytes but has 8/);
    handMade(bad, { a: { dtype: 'Q4', shape: [1], data_offsets: [0, 1] } }, Buffer.alloc(8));
    assert.throws(() => readHeader(bad), SafetensorsError);
    fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: { a: 'gone.safetensors' } }));
    assert.throws(() => WeightFiles.open(dir), /names shard 'gone\.safetensors', which is missing/);
    assert.throws(() => WeightFiles.open(path.join(dir, 'nope')), /does not exist/);
    fs.rmSync(dir, { recursive: true });
  });

  it('writes atomically: no temporary files remain and a failed write keeps the old file', () => {
    const dir = tmp();
    const file = path.join(dir, 'z.safetensors');
    writeSafetensors(file, [{ name: 'a', shape: [1], data: Float32Array.of(1) }]);
    assert.throws(() => writeSafetensors(file, [{ name: 'a', shape: [2], data: Float32Array.of(1) }]), /needs 2 values/);
    assert.deepEqual(fs.readdirSync(dir), ['z.safetensors']);
    assert.deepEqual([...readSafetensors(file).tensors.get('a')!.data], [1]);
    fs.rmSync(dir, { recursive: true });
  });
});
