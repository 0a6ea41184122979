import { BufferUsage, type GpuDevice } from '../../main/engine/gpu/gpuTypes.js';

/** WebGPU calls counted on one device: dispatches, submits, and bytes the host read back. */
export interface GpuCallCounts {
  dispatches: number;
  submits: number;
  readBytes: number;
}

type Fn = (...args: unknown[]) => unknown;

/** Replaces `obj[name]` with a wrapper that calls `before` then the original; returns the undo. */
function wrap(obj: object, name: string, before: (args: unknown[], result: unknown) => unknown): () => void {
  const o = obj as Record<string, Fn>;
  const original = o[name];
  o[name] = function (this: unknown, ...args: unknown[]) {
    const result = original.apply(obj, args);
    return before(args, result) ?? result;
  };
  return () => {
    o[name] = original;
  };
}

/**
 * Counts the WebGPU calls made on `device` until `stop()`: every dispatch of every compute pass of
 * encoders created meanwhile, every queue submit, and the bytes those encoders copy into buffers
 * the host maps to read (how anything comes back from the GPU).
 */
export function countGpuCalls(device: GpuDevice): { counts: GpuCallCounts; stop: () => void } {
  const counts: GpuCallCounts = { dispatches: 0, submits: 0, readBytes: 0 };
  let on = true;
  const undo = [
    wrap(device.queue, 'submit', () => void (on && counts.submits++)),
    wrap(device, 'createCommandEncoder', (_, enc) => {
      wrap(
        enc as object,
        'beginComputePass',
        (__, pass) => void wrap(pass as object, 'dispatchWorkgroups', () => void (on && counts.dispatches++)),
      );
      wrap(enc as object, 'copyBufferToBuffer', (args) => {
        const [, , dst, , size] = args as [unknown, number, { usage: number }, number, number];
        if (on && dst.usage & BufferUsage.MAP_READ) counts.readBytes += size;
      });
    }),
  ];
  return {
    counts,
    stop: () => {
      on = false;
      for (const u of undo) u();
    },
  };
}
