import type { GpuAdapterInfo, GpuDevice } from '../../../gpu/gpuTypes.js';
import type { CoopConfig } from './coopMatmulWgsl.js';

/**
 * Which matmul path may use cooperative matrices: CLAWLOOP_GPU_MATMUL = 'auto' (default: float32
 * components only, so results stay float32-accurate), 'f16' (also half-precision inputs with
 * float32 accumulation: faster where the GPU has only f16 tensor cores, less accurate) or 'plain'
 * (never).
 */
export function coopPolicy(env: NodeJS.ProcessEnv = process.env): 'auto' | 'f16' | 'plain' {
  const raw = env.CLAWLOOP_GPU_MATMUL?.trim().toLowerCase() || 'auto';
  if (raw === 'auto' || raw === 'f16' || raw === 'plain') return raw;
  throw new Error(`CLAWLOOP_GPU_MATMUL is '${env.CLAWLOOP_GPU_MATMUL}'; valid: auto, f16, plain`);
}

/** The adapter's subgroup-matrix configuration the cooperative kernel can use, or null. */
export function chooseCoopConfig(device: GpuDevice, info: GpuAdapterInfo, policy: 'auto' | 'f16' | 'plain'): CoopConfig | null {
  if (policy === 'plain' || !device.features.has('chromium-experimental-subgroup-matrix')) return null;
  const size = info.subgroupMaxSize;
  // The quadrant-per-subgroup layout needs exactly 4 subgroups per workgroup: a fixed subgroup size.
  if (!size || info.subgroupMinSize !== size || 4 * size > device.limits.maxComputeInvocationsPerWorkgroup) return null;
  const usable = (info.subgroupMatrixConfigs ?? []).filter(
    (c) =>
      c.resultComponentType === 'f32' &&
      (c.componentType === 'f32' || (c.componentType === 'f16' && policy === 'f16' && device.features.has('shader-f16'))) &&
      32 % c.M === 0 &&
      32 % c.N === 0 &&
      32 % c.K === 0,
  );
  const best = usable.find((c) => c.componentType === 'f32') ?? usable[0];
  return best ? { component: best.componentType as 'f32' | 'f16', M: best.M, N: best.N, K: best.K, subgroupSize: size } : null;
}
