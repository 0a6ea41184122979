import { probeGpuIsolated } from '../../main/engine/gpu/index.js';

let reason: Promise<string | false> | null = null;

/**
 * Why the GPU suites cannot run here, as a node:test `skip` reason starting "requires " (listed in
 * the run's summary, not counted as a pass), or false when a WebGPU adapter is there. The adapter
 * is the one CLAWLOOP_WEBGPU_ADAPTER asks for: scripts/run-tests.mjs runs the GPU suites with
 * 'software' (Mesa's llvmpipe) unless it is set. With CLAWLOOP_REQUIRE_GPU=1 (CI) a missing
 * adapter throws instead: the suites must run there.
 */
export function gpuSkipReason(): Promise<string | false> {
  reason ??= probeGpuIsolated().then((r) => {
    if (r.usable) return false;
    const what = r.requested === 'software' ? "the software WebGPU adapter (Mesa's OpenGL ES)" : 'a WebGPU adapter';
    const why = `requires ${what}: ${r.problems.join(' ')}`;
    if (process.env.CLAWLOOP_REQUIRE_GPU === '1') throw new Error(`CLAWLOOP_REQUIRE_GPU=1 but the GPU suites cannot run: ${why}`);
    return why;
  });
  return reason;
}
