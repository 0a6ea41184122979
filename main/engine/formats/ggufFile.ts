import fs from 'node:fs';
import { atomicWriteFileSync, writeAll } from '../../util/atomicWrite.js';

/**
 * The GGUF file format (llama.cpp's, version 3): writing a file with F32 (or 16-bit) tensors, and
 * reading a file's header back. What goes into the file for a model is in ggufExport.ts.
 *
 * Layout: magic "GGUF", version, tensor count, metadata count, metadata key/values, tensor infos
 * (name, dims fastest-first, type, offset), padding to the alignment, then the tensor data.
 */

const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian uint32
const ALIGNMENT = 32;
/** ggml's tensor type ids. */
const GGML_TYPE = { F32: 0, F16: 1, BF16: 30 } as const;

enum ValueType {
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
}

export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: string[] }
  | { type: 'i32[]'; value: number[] }
  | { type: 'f32[]'; value: number[] };

export interface GgufTensor {
  name: string;
  /** Row-major shape as PyTorch/Hugging Face write it (slowest dimension first). */
  shape: number[];
  /** Float32 values, or the raw bits of F16/BF16 values (then `type` says which). */
  data: Float32Array | Uint16Array;
  /** Storage type. Default F32; F16 and BF16 take their bits from a Uint16Array. */
  type?: 'F32' | 'F16' | 'BF16';
}

class ByteWriter {
  private chunks: Buffer[] = [];
  length = 0;
  private push(b: Buffer) {
    this.chunks.push(b);
    this.length += b.length;
  }
  u32(v: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v: number) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v: number) {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  str(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  bytes(b: Buffer) {
    this.push(b);
  }
  buffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function writeValue(w: ByteWriter, v: GgufValue): void {
  switch (v.type) {
    case 'u32':
      w.u32(ValueType.UINT32);
      return w.u32(v.value);
    case 'i32':
      w.u32(ValueType.INT32);
      return w.i32(v.value);
    case 'f32':
      w.u32(ValueType.FLOAT32);
      return w.f32(v.value);
    case 'bool':
      w.u32(ValueType.BOOL);
      return w.bytes(Buffer.from([v.value ? 1 : 0]));
    case 'string':
      w.u32(ValueType.STRING);
      return w.str(v.value);
    case 'string[]':
      w.u32(ValueType.ARRAY);
      w.u32(ValueType.STRING);
      w.u64(v.value.length);
      return v.value.forEach((s) => w.str(s));
    case 'i32[]':
      w.u32(ValueType.ARRAY);
      w.u32(ValueType.INT32);
      w.u64(v.value.length);
      return v.value.forEach((x) => w.i32(x));
    case 'f32[]':
      w.u32(ValueType.ARRAY);
      w.u32(ValueType.FLOAT32);
      w.u64(v.value.length);
      return v.value.forEach((x) => w.f32(x));
  }
}

const pad = (n: number) => (ALIGNMENT - (n % ALIGNMENT)) % ALIGNMENT;

/** Writes a GGUF v3 file (atomically). */
export function writeGguf(file: string, metadata: Array<[string, GgufValue]>, tensors: GgufTensor[]): void {
  const w = new ByteWriter();
  w.u32(GGUF_MAGIC);
  w.u32(3);
  w.u64(tensors.length);
  w.u64(metadata.length + 1);
  w.str('general.alignment');
  writeValue(w, { type: 'u32', value: ALIGNMENT });
  for (const [key, value] of metadata) {
    w.str(key);
    writeValue(w, value);
  }
  let offset = 0;
  for (const t of tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    if (n !== t.data.length)
      throw new Error(`GGUF tensor '${t.name}': shape ${JSON.stringify(t.shape)} needs ${n} values, got ${t.data.length}`);
    w.str(t.name);
    w.u32(t.shape.length);
    for (const d of [...t.shape].reverse()) w.u64(d); // GGUF lists the fastest-varying dimension first
    const type = t.type ?? 'F32';
    if ((type === 'F32') !== t.data instanceof Float32Array) throw new Error(`GGUF tensor '${t.name}': ${type} data must be a ${type === 'F32' ? 'Float32Array' : 'Uint16Array'}`);
    w.u32(GGML_TYPE[type]);
    w.u64(offset);
    offset += t.data.byteLength + pad(t.data.byteLength);
  }
  const header = w.buffer();
  atomicWriteFileSync(file, (fd) => {
    writeAll(fd, header);
    writeAll(fd, Buffer.alloc(pad(header.length)));
    for (const t of tensors) {
      writeAll(fd, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
      writeAll(fd, Buffer.alloc(pad(t.data.byteLength)));
    }
  });
}

/** Reads the metadata and tensor directory of a GGUF file (for tests and inspection). */
export function readGgufHeader(file: string): {
  metadata: Map<string, unknown>;
  tensors: Array<{ name: string; dims: number[]; type: number; offset: number }>;
} {
  const buf = fs.readFileSync(file);
  let p = 0;
  const u32 = () => ((p += 4), buf.readUInt32LE(p - 4));
  const u64 = () => ((p += 8), Number(buf.readBigUInt64LE(p - 8)));
  const str = () => {
    const n = u64();
    p += n;
    return buf.toString('utf8', p - n, p);
  };
  const value = (type: number): unknown => {
    switch (type) {
      case ValueType.UINT32:
        return u32();
      case ValueType.INT32:
        return ((p += 4), buf.readInt32LE(p - 4));
      case ValueType.FLOAT32:
        return ((p += 4), buf.readFloatLE(p - 4));
      case ValueType.BOOL:
        return buf[p++] !== 0;
      case ValueType.STRING:
        return str();
      case ValueType.ARRAY: {
        const t = u32();
        const n = u64();
        return Array.from({ length: n }, () => value(t));
      }
      default:
        throw new Error(`GGUF value type ${type} is not supported by this reader`);
    }
  };
  if (u32() !== GGUF_MAGIC) throw new Error(`${file} is not a GGUF file`);
  const version = u32();
  if (version !== 3) throw new Error(`${file}: GGUF version ${version}; expected 3`);
  const nTensors = u64();
  const nKv = u64();
  const metadata = new Map<string, unknown>();
  for (let i = 0; i < nKv; i++) {
    const k = str();
    metadata.set(k, value(u32()));
  }
  const tensors = [];
  for (let i = 0; i < nTensors; i++) {
    const name = str();
    const nd = u32();
    const dims = Array.from({ length: nd }, () => u64());
    tensors.push({ name, dims, type: u32(), offset: u64() });
  }
  return { metadata, tensors };
}
