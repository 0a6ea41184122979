/**
 * The GPU probe: which WebGPU adapter is here, and why there is none. Loads no tfjs, so the HTTP
 * thread may import it; `probeGpuIsolated` runs the probe in a child process, off the caller's
 * thread.
 */
export { probeGpu, probeGpuIsolated } from './probeGpu.js';
export { formatGpuReport, type GpuAdapterReport, type GpuReport } from './gpuReport.js';
export { adapterChoice, GPU_PACKAGES, prepareGpuEnvironment } from './dawn.js';
