/**
 * Number arrays as SQLite BLOBs: little-endian int32 (token ids) or float32 (log-probs), the way
 * the turns and samples tables store them.
 */
export const int32Blob = (a: readonly number[]): Buffer => Buffer.from(Int32Array.from(a).buffer);
export const float32Blob = (a: readonly number[]): Buffer => Buffer.from(Float32Array.from(a).buffer);

// A Buffer may be a view into a larger pool: copy its own bytes before viewing them as numbers.
const own = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
export const fromInt32Blob = (b: Buffer): number[] => Array.from(new Int32Array(own(b)));
export const fromFloat32Blob = (b: Buffer): number[] => Array.from(new Float32Array(own(b)));
