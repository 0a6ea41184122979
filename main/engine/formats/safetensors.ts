import fs from 'node:fs';
import os from 'node:os';
import { halfToFloatTable } from './halfFloat.js';

/**
 * Reading the safetensors format (writing: safetensorsWrite.ts; a model folder's shards: weightFiles.ts): an 8-byte little-endian header length N, N bytes of
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
      if (!(dtype in DTYPE_BYTES)) {
        throw new SafetensorsError(
          `${file}: tensor '${name}' has dtype '${info.dtype}', which ClawLoop cannot read (it reads ${Object.keys(DTYPE_BYTES).join(', ')}; ` +
            'model weights must be F32, F16 or BF16: use the original, unquantized release)',
        );
      }
      const shape = info.shape ?? [];
      const [s, e] = info.data_offsets ?? [-1, -1];
      const count = shape.reduce((a, b) => a * b, 1);
      if (!(s >= 0 && e >= s)) throw new SafetensorsError(`${file}: tensor '${name}' has data offsets [${s}, ${e}] outside the file`);
      if (base + e > size) {
        throw new SafetensorsError(
          `${file} is truncated: tensor '${name}' has data offsets [${s}, ${e}] outside the file (it needs ${base + e} bytes, ` +
            `the file has ${size}); an interrupted download? Fetch the file again`,
        );
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
