import { probeGpuIsolated } from '../../main/engine/gpu/index.js';

let reason: Promise<string | false> | null = null;

/**
 * Why the GPU suites cannot run here, as a node:test `skip` reason starting "requires " (listed in
 * the run's summary, not counted as a pass), or false when a WebGPU adapter is there. The adapter
 * is the one CLAWLOOP_WEBGPU_ADAPTER asks for: scripts/run-tests.mjs runs the GPU suites with
 * 'software' (Mesa's llvmpipe) unless it is set.
 */
export function gpuSkipReason(): Promise<string | false> {
  reason ??= probeGpuIsolated().then((r) => {
    if (r.usable) return false;
    const what = r.requested === 'software' ? "the software WebGPU adapter (Mesa's OpenGL ES)" : 'a WebGPU adapter';
    return `requires ${what}: ${r.problems.join(' ')}`;
  });
  return reason;
}
