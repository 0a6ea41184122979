import { PackedWeight, type WeightFormat } from './packedWeight.js';

/**
 * How projection weights are stored on a GPU backend: 'auto' keeps a checkpoint's F16/BF16
 * weights 16-bit (exactly as stored, half the memory of float32) and float32 ones float32;
 * 'f16'/'bf16' store every projection in that format (rounding float32 checkpoints); 'f32' never
 * packs. Other backends ignore it (the native backend memory-maps 16-bit weights as they are on
 * disk; wasm and cpu use float32). Default: CLAWLOOP_GPU_WEIGHTS, else 'auto'.
 */
export type WeightStorage = 'auto' | 'f32' | WeightFormat;

/** Where each projection weight's 16-bit storage comes from: its format in the file, if 16-bit. */
export type StorageOf = (name: string) => WeightFormat | null;

export function weightStorageFromEnv(env: NodeJS.ProcessEnv = process.env): WeightStorage {
  const raw = env.CLAWLOOP_GPU_WEIGHTS?.trim().toLowerCase() || 'auto';
  if (raw === 'auto' || raw === 'f32' || raw === 'f16' || raw === 'bf16') return raw;
  throw new Error(`CLAWLOOP_GPU_WEIGHTS is '${env.CLAWLOOP_GPU_WEIGHTS}'; valid: auto, f32, f16, bf16`);
}

/** Which projection weights to pack 16-bit: none where the backend has no packed matmul; else as `storage` says. */
export function storageOf(storage: WeightStorage, fileFormat: (name: string) => string | undefined): StorageOf {
  if (storage === 'f32' || !PackedWeight.supported()) return () => null;
  return (name) => {
    if (storage !== 'auto') return storage;
    const f = fileFormat(name);
    return f === 'BF16' ? 'bf16' : f === 'F16' ? 'f16' : null;
  };
}
