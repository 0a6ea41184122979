/*
 * Which optional WebGPU features ClawLoop's kernels use, and the Dawn instance flags that expose
 * them.
 */

/** Dawn's name for cooperative matrices (tensor cores), exposed only with its unsafe-APIs toggle. */
export const SUBGROUP_MATRIX = 'chromium-experimental-subgroup-matrix';

/** The optional features the kernels use, when the adapter offers them. */
export const WANTED_FEATURES = ['shader-f16', 'subgroups', SUBGROUP_MATRIX, 'timestamp-query'] as const;

/** The device limits the kernels depend on: requested at the adapter's maximum, and printed by profile:gpu. */
export const KERNEL_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
] as const;

export function kernelFeatures(features: ReadonlySet<string>): { subgroups: boolean; shaderF16: boolean; subgroupMatrix: boolean } {
  return { subgroups: features.has('subgroups'), shaderF16: features.has('shader-f16'), subgroupMatrix: features.has(SUBGROUP_MATRIX) };
}

/**
 * Dawn toggles, as instance flags, for a choice of adapter:
 * - `allow_unsafe_apis` exposes experimental features such as cooperative matrices. The browser
 *   keeps them from untrusted pages; ClawLoop runs only its own shaders, so it turns the toggle on
 *   for hardware adapters unless CLAWLOOP_WEBGPU_UNSAFE_APIS=0. Kernels that use such a feature are
 *   checked against the plain kernel when the backend starts, and dropped on a mismatch.
 * - `vulkan_enable_f16_on_nvidia`: Dawn withholds `shader-f16` on NVIDIA's Vulkan driver without
 *   it (and with it every f16 subgroup-matrix configuration, the only kind NVIDIA's tensor cores
 *   take). Set for hardware adapters; other vendors ignore it. Not yet verified on an NVIDIA GPU.
 * - With CLAWLOOP_WEBGPU_PRECISE_TIMESTAMPS=1 (the GPU profiler sets it), `timestamp_quantization`
 *   is turned off: Dawn otherwise rounds timestamp queries to about 65 µs.
 */
export function dawnInstanceFlags(choice: 'hardware' | 'software', env: NodeJS.ProcessEnv = process.env): string[] {
  const enable: string[] = [];
  if (choice === 'hardware') {
    if (env.CLAWLOOP_WEBGPU_UNSAFE_APIS !== '0') enable.push('allow_unsafe_apis');
    enable.push('vulkan_enable_f16_on_nvidia');
  }
  const flags = enable.length ? [`enable-dawn-features=${enable.join(',')}`] : [];
  if (env.CLAWLOOP_WEBGPU_PRECISE_TIMESTAMPS === '1') flags.push('disable-dawn-features=timestamp_quantization');
  return flags;
}
