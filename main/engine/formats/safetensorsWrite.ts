import { atomicWriteFileSync, writeAll } from '../../util/atomicWrite.js';
import { floatToBf16, floatToHalf } from './halfFloat.js';
import { SafetensorsError } from './safetensors.js';

/** A tensor to write: float data is stored as F32 unless `dtype` says F16/BF16. */
export interface TensorToWrite {
  name: string;
  shape: number[];
  data: Float32Array;
  dtype?: 'F32' | 'F16' | 'BF16';
}

function encode(t: TensorToWrite): Uint8Array {
  const dtype = t.dtype ?? 'F32';
  if (dtype === 'F32') return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const out = new Uint16Array(t.data.length);
  const scratch = new Float32Array(1);
  const bits = new Uint32Array(scratch.buffer);
  if (dtype === 'BF16') {
    for (let i = 0; i < out.length; i++) out[i] = floatToBf16(t.data[i], scratch, bits);
  } else {
    for (let i = 0; i < out.length; i++) out[i] = floatToHalf(t.data[i], scratch, bits);
  }
  return new Uint8Array(out.buffer);
}

/**
 * The start of a safetensors file whose data a caller streams itself: the 8-byte length and the
 * padded JSON header for tensors of one 16-bit `dtype`, stored in the order given. `offsets` maps
 * each name to where its data starts in the file; `bytes` is the file's whole size.
 */
export function halfPrecisionHeader(
  tensors: Iterable<[name: string, shape: number[]]>,
  dtype: 'F16' | 'BF16',
  metadata: Record<string, string> = {},
): { prefix: Buffer; offsets: Map<string, number>; bytes: number } {
  const header: Record<string, unknown> = Object.keys(metadata).length ? { __metadata__: metadata } : {};
  const starts = new Map<string, number>();
  let offset = 0;
  for (const [name, shape] of tensors) {
    const n = 2 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype, shape, data_offsets: [offset, offset + n] };
    starts.set(name, offset);
    offset += n;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (Buffer.byteLength(json) % 8)) % 8);
  const head = Buffer.from(json);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(head.byteLength));
  const base = 8 + head.byteLength;
  return { prefix: Buffer.concat([len, head]), offsets: new Map([...starts].map(([k, v]) => [k, base + v])), bytes: base + offset };
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
