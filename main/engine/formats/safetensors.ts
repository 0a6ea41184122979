import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { atomicWriteFileSync, writeAll } from '../../util/atomicWrite.js';

/**
 * Reading and writing the safetensors format: an 8-byte little-endian header length N, N bytes of
 * JSON `{name: {dtype, shape, data_offsets: [start, end]}, "__metadata__"?: {...}}`, then the data.
 * Offsets are relative to the end of the header.
 */

export type SafetensorsDtype = 'F64' | 'F32' | 'F16' | 'BF16' | 'I64' | 'I32' | 'I16' | 'I8' | 'U8' | 'BOOL';

const DTYPE_BYTES: Record<SafetensorsDtype, number> = {
  F64: 8,
  F32: 4,
  F16: 2,
  BF16: 2,
  I64: 8,
  I32: 4,
  I16: 2,
  I8: 1,
  U8: 1,
  BOOL: 1,
};

/** Where one tensor lives on disk. */
export interface TensorEntry {
  name: string;
  dtype: SafetensorsDtype;
  shape: number[];
  file: string;
  /** Absolute byte offsets in `file`. */
  start: number;
  end: number;
}

export class SafetensorsError extends Error {
  override name = 'SafetensorsError';
}

if (os.endianness() !== 'LE') throw new Error('ClawLoop reads safetensors only on little-endian machines');

const MAX_HEADER_BYTES = 100 * 1024 * 1024;

/** Parses the header of one .safetensors file, checking every offset against the file size. */
export function readHeader(file: string): { entries: TensorEntry[]; metadata: Record<string, string> } {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    if (size < 8) throw new SafetensorsError(`${file}: ${size} bytes is too short for a safetensors file`);
    const lenBuf = Buffer.alloc(8);
    fs.readSync(fd, lenBuf, 0, 8, 0);
    const n = Number(lenBuf.readBigUInt64LE(0));
    if (n <= 0 || n > MAX_HEADER_BYTES || 8 + n > size) {
      throw new SafetensorsError(`${file}: header length ${n} is invalid for a ${size}-byte file (not a safetensors file?)`);
    }
    const headBuf = Buffer.alloc(n);
    fs.readSync(fd, headBuf, 0, n, 8);
    let header: Record<string, unknown>;
    try {
      header = JSON.parse(headBuf.toString('utf8'));
    } catch (err) {
      throw new SafetensorsError(`${file}: header is not valid JSON (${(err as Error).message})`);
    }
    const base = 8 + n;
    const entries: TensorEntry[] = [];
    let metadata: Record<string, string> = {};
    for (const [name, raw] of Object.entries(header)) {
      if (name === '__metadata__') {
        metadata = (raw ?? {}) as Record<string, string>;
        continue;
      }
      const info = raw as { dtype?: string; shape?: number[]; data_offsets?: [number, number] };
      const dtype = info.dtype as SafetensorsDtype;
      if (!(dtype in DTYPE_BYTES)) throw new SafetensorsError(`${file}: tensor '${name}' has unknown dtype '${info.dtype}'`);
      const shape = info.shape ?? [];
      const [s, e] = info.data_offsets ?? [-1, -1];
      const count = shape.reduce((a, b) => a * b, 1);
      if (!(s >= 0 && e >= s && base + e <= size)) {
        throw new SafetensorsError(`${file}: tensor '${name}' has data offsets [${s}, ${e}] outside the file`);
      }
      if (e - s !== count * DTYPE_BYTES[dtype]) {
        throw new SafetensorsError(
          `${file}: tensor '${name}' (${dtype} ${JSON.stringify(shape)}) needs ${count * DTYPE_BYTES[dtype]} bytes but has ${e - s}`,
        );
      }
      entries.push({ name, dtype, shape, file, start: base + s, end: base + e });
    }
    return { entries, metadata };
  } finally {
    fs.closeSync(fd);
  }
}

// f16 -> f32 through a 64 K-entry table: one lookup per element.
let halfTable: Float32Array | null = null;
function halfToFloatTable(): Float32Array {
  if (halfTable) return halfTable;
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    if (exp === 0) t[h] = sign * frac * 2 ** -24;
    else if (exp === 31) t[h] = frac ? NaN : sign * Infinity;
    else t[h] = sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return (halfTable = t);
}

function readBytes(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.byteLength) {
    const n = fs.readSync(fd, into, done, Math.min(into.byteLength - done, 1 << 30), position + done);
    if (n === 0) throw new SafetensorsError('unexpected end of file while reading tensor data');
    done += n;
  }
}

/** Reads one tensor as float32, converting F16, BF16 and F64. Integer tensors are refused. */
export function readFloat32(entry: TensorEntry, fd?: number): Float32Array {
  const count = entry.shape.reduce((a, b) => a * b, 1);
  const own = fd === undefined;
  const handle = own ? fs.openSync(entry.file, 'r') : fd;
  try {
    switch (entry.dtype) {
      case 'F32': {
        const out = new Float32Array(count);
        readBytes(handle, new Uint8Array(out.buffer), entry.start);
        return out;
      }
      case 'F16':
      case 'BF16': {
        const raw = new Uint16Array(count);
        readBytes(handle, new Uint8Array(raw.buffer), entry.start);
        const out = new Float32Array(count);
        if (entry.dtype === 'F16') {
          const t = halfToFloatTable();
          for (let i = 0; i < count; i++) out[i] = t[raw[i]];
        } else {
          const bits = new Uint32Array(out.buffer);
          for (let i = 0; i < count; i++) bits[i] = raw[i] << 16;
        }
        return out;
      }
      case 'F64': {
        const raw = new Float64Array(count);
        readBytes(handle, new Uint8Array(raw.buffer), entry.start);
        return Float32Array.from(raw);
      }
      default:
        throw new SafetensorsError(`tensor '${entry.name}' has dtype ${entry.dtype}; expected a float type (F32, F16, BF16, F64)`);
    }
  } finally {
    if (own) fs.closeSync(handle);
  }
}

/**
 * The tensors of a model folder: `model.safetensors`, or the shards named by
 * `model.safetensors.index.json`, or a single given file. Tensors are read one at a time, so a
 * loader never holds more than the model plus one tensor in memory.
 */
export class WeightFiles {
  private readonly byName = new Map<string, TensorEntry>();
  private readonly fds = new Map<string, number>();

  private constructor(entries: TensorEntry[]) {
    for (const e of entries) {
      if (this.byName.has(e.name))
        throw new SafetensorsError(`tensor '${e.name}' appears in two files (${this.byName.get(e.name)!.file}, ${e.file})`);
      this.byName.set(e.name, e);
    }
  }

  /** Opens a folder (single or sharded) or a single .safetensors file. */
  static open(location: string): WeightFiles {
    if (!fs.existsSync(location)) throw new SafetensorsError(`${location} does not exist`);
    if (fs.statSync(location).isFile()) return new WeightFiles(readHeader(location).entries);
    const index = path.join(location, 'model.safetensors.index.json');
    const single = path.join(location, 'model.safetensors');
    if (fs.existsSync(index)) {
      let weightMap: Record<string, string>;
      try {
        weightMap = JSON.parse(fs.readFileSync(index, 'utf8')).weight_map;
      } catch (err) {
        throw new SafetensorsError(`${index}: not valid JSON (${(err as Error).message})`);
      }
      if (!weightMap || typeof weightMap !== 'object') throw new SafetensorsError(`${index}: has no 'weight_map' object`);
      const shards = [...new Set(Object.values(weightMap))];
      const entries: TensorEntry[] = [];
      for (const shard of shards) {
        const file = path.join(location, shard);
        if (!fs.existsSync(file)) throw new SafetensorsError(`${index} names shard '${shard}', which is missing`);
        for (const e of readHeader(file).entries) {
          if (weightMap[e.name] !== shard) {
            throw new SafetensorsError(`${file}: tensor '${e.name}' is not listed for this shard in ${path.basename(index)}`);
          }
          entries.push(e);
        }
      }
      const found = new Set(entries.map((e) => e.name));
      const missing = Object.keys(weightMap).filter((n) => !found.has(n));
      if (missing.length) throw new SafetensorsError(`${index} lists tensors no shard contains: ${missing.slice(0, 10).join(', ')}`);
      return new WeightFiles(entries);
    }
    if (fs.existsSync(single)) return new WeightFiles(readHeader(single).entries);
    throw new SafetensorsError(`${location} has neither model.safetensors nor model.safetensors.index.json`);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  get(name: string): TensorEntry | undefined {
    return this.byName.get(name);
  }

  /** Reads one tensor as float32. */
  read(name: string): Float32Array {
    const entry = this.byName.get(name);
    if (!entry) throw new SafetensorsError(`no tensor named '${name}'`);
    let fd = this.fds.get(entry.file);
    if (fd === undefined) this.fds.set(entry.file, (fd = fs.openSync(entry.file, 'r')));
    return readFloat32(entry, fd);
  }

  close(): void {
    for (const fd of this.fds.values()) fs.closeSync(fd);
    this.fds.clear();
  }
}

/** A tensor to write: float data is stored as F32 unless `dtype` says F16/BF16. */
export interface TensorToWrite {
  name: string;
  shape: number[];
  data: Float32Array;
  dtype?: 'F32' | 'F16' | 'BF16';
}

function floatToHalf(f: number, scratch: Float32Array, bits: Uint32Array): number {
  scratch[0] = f;
  const x = bits[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && half & 1)) half++;
    return sign | half;
  }
  let half = sign | (e << 10) | (mant >> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++; // round to nearest even; a carry rolls into the exponent
  return half;
}

function encode(t: TensorToWrite): Uint8Array {
  const dtype = t.dtype ?? 'F32';
  if (dtype === 'F32') return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const out = new Uint16Array(t.data.length);
  const scratch = new Float32Array(1);
  const bits = new Uint32Array(scratch.buffer);
  if (dtype === 'BF16') {
    for (let i = 0; i < out.length; i++) {
      scratch[0] = t.data[i];
      const x = bits[0];
      // Round to nearest even, keeping NaN a NaN.
      out[i] = Number.isNaN(t.data[i]) ? 0x7fc0 : (x + 0x7fff + ((x >>> 16) & 1)) >>> 16;
    }
  } else {
    for (let i = 0; i < out.length; i++) out[i] = floatToHalf(t.data[i], scratch, bits);
  }
  return new Uint8Array(out.buffer);
}

/** Writes a .safetensors file atomically (temp file, fsync, rename). */
export function writeSafetensors(file: string, tensors: TensorToWrite[], metadata: Record<string, string> = {}): void {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length) header.__metadata__ = metadata;
  const blobs: Uint8Array[] = [];
  let offset = 0;
  for (const t of [...tensors].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) {
      throw new SafetensorsError(`tensor '${t.name}': shape ${JSON.stringify(t.shape)} needs ${count} values, got ${t.data.length}`);
    }
    if (t.name in header) throw new SafetensorsError(`tensor '${t.name}' given twice`);
    const blob = encode(t);
    header[t.name] = { dtype: t.dtype ?? 'F32', shape: t.shape, data_offsets: [offset, offset + blob.byteLength] };
    blobs.push(blob);
    offset += blob.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (Buffer.byteLength(json) % 8)) % 8);
  const head = Buffer.from(json);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(head.byteLength));
  atomicWriteFileSync(file, (fd) => {
    writeAll(fd, len);
    writeAll(fd, head);
    for (const b of blobs) writeAll(fd, b);
  });
}

/** Reads every tensor of a small file into memory (adapters, optimizer state, fixtures). */
export function readSafetensors(file: string): {
  tensors: Map<string, { shape: number[]; data: Float32Array }>;
  metadata: Record<string, string>;
} {
  const { entries, metadata } = readHeader(file);
  const fd = fs.openSync(file, 'r');
  try {
    const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
    for (const e of entries) tensors.set(e.name, { shape: e.shape, data: readFloat32(e, fd) });
    return { tensors, metadata };
  } finally {
    fs.closeSync(fd);
  }
}
