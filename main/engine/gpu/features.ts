/*
 * Which optional WebGPU features ClawLoop's kernels use, and the Dawn instance flags that expose
 * them.
 */

/** Dawn's name for cooperative matrices (tensor cores), exposed only with its unsafe-APIs toggle. */
export const SUBGROUP_MATRIX = 'chromium-experimental-subgroup-matrix';

/** The optional features the kernels use, when the adapter offers them. */
export const WANTED_FEATURES = ['shader-f16', 'subgroups', SUBGROUP_MATRIX, 'timestamp-query'] as const;

export function kernelFeatures(features: ReadonlySet<string>): { subgroups: boolean; shaderF16: boolean; subgroupMatrix: boolean } {
  return { subgroups: features.has('subgroups'), shaderF16: features.has('shader-f16'), subgroupMatrix: features.has(SUBGROUP_MATRIX) };
}

/**
 * Dawn's `allow_unsafe_apis` toggle exposes experimental features such as cooperative matrices. The
 * browser keeps them from untrusted pages; ClawLoop runs only its own shaders, so it turns the
 * toggle on for hardware adapters unless CLAWLOOP_WEBGPU_UNSAFE_APIS=0. Kernels that use such a
 * feature are checked against the plain kernel when the backend starts, and dropped on a mismatch.
 */
export function dawnInstanceFlags(choice: 'hardware' | 'software', env: NodeJS.ProcessEnv = process.env): string[] {
  if (choice === 'software' || env.CLAWLOOP_WEBGPU_UNSAFE_APIS === '0') return [];
  return ['enable-dawn-features=allow_unsafe_apis'];
}
