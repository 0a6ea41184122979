import type { GpuContext } from '../../../main/engine/backends/webgpu/gpuContext.js';
import { chooseCoopConfig, coopPolicy } from '../../../main/engine/backends/webgpu/kernels/coopConfig.js';
import { KERNEL_LIMITS } from '../../../main/engine/gpu/features.js';
import type { GpuReport } from '../../../main/engine/gpu/gpuReport.js';
import type { GpuSubgroupMatrixConfig } from '../../../main/engine/gpu/gpuTypes.js';

/** Why the engine's chooser would not take `c` under any policy (its criteria, spelled out). */
function refusal(c: GpuSubgroupMatrixConfig, ctx: GpuContext): string {
  const why: string[] = [];
  const info = ctx.adapterInfo;
  if (!info.subgroupMaxSize || info.subgroupMinSize !== info.subgroupMaxSize)
    why.push(`subgroup size not fixed (${info.subgroupMinSize}–${info.subgroupMaxSize})`);
  if (c.resultComponentType !== 'f32') why.push(`accumulates in ${c.resultComponentType}, the kernel needs f32`);
  if (c.componentType !== 'f32' && c.componentType !== 'f16') why.push(`inputs ${c.componentType}: the kernel takes f32 or f16`);
  if (c.componentType === 'f16' && !ctx.device.features.has('shader-f16')) why.push('f16 inputs without shader-f16 on the device');
  if (32 % c.M || 32 % c.N || 32 % c.K) why.push(`${c.M}×${c.N}×${c.K} does not divide the 32×32 quadrant`);
  return why.join('; ') || 'not taken (another configuration ranks first)';
}

/** The adapter, its features and limits, every subgroup-matrix configuration and the engine's choice. */
export function adapterSection(ctx: GpuContext, probe: GpuReport): { lines: string[]; json: Record<string, unknown> } {
  const info = ctx.adapterInfo;
  const a = probe.adapter;
  const software = a?.software ?? probe.requested === 'software';
  const name = [info.vendor, info.architecture, info.device, info.description].filter((s) => s).join(' / ') || '(unnamed adapter)';
  const lines = [`adapter: ${name}${software ? '  [SOFTWARE ADAPTER: figures are not GPU speed]' : ''}`];
  lines.push(`  adapter features: ${a?.features.join(', ') || '(not probed)'}`);
  lines.push(`  device features (requested by the engine): ${[...ctx.device.features].sort().join(', ') || 'none'}`);
  const limits = Object.fromEntries(KERNEL_LIMITS.map((l) => [l, ctx.device.limits[l]]));
  lines.push(`  limits: ${KERNEL_LIMITS.map((l) => `${l} ${ctx.device.limits[l]}`).join(', ')}`);
  lines.push(`  subgroup sizes: ${info.subgroupMinSize ?? '?'}–${info.subgroupMaxSize ?? '?'}`);
  const configs = [...(info.subgroupMatrixConfigs ?? [])];
  const policy = coopPolicy();
  const rows = configs.map((c) => {
    const only = { ...info, subgroupMatrixConfigs: [c] };
    const auto = chooseCoopConfig(ctx.device, only, 'auto') !== null;
    const f16 = chooseCoopConfig(ctx.device, only, 'f16') !== null;
    const verdict = auto ? 'usable (auto)' : f16 ? 'usable only with CLAWLOOP_GPU_MATMUL=f16' : `refused: ${refusal(c, ctx)}`;
    lines.push(`  subgroup matrix ${c.componentType}→${c.resultComponentType} ${c.M}×${c.N}×${c.K}: ${verdict}`);
    return { ...c, usableAuto: auto, usableF16: f16, verdict };
  });
  if (!configs.length) {
    const why = ctx.device.features.has('chromium-experimental-subgroup-matrix')
      ? 'the feature is on but the adapter lists no configuration'
      : 'no chromium-experimental-subgroup-matrix feature (Dawn exposes it only with allow_unsafe_apis, on hardware adapters)';
    lines.push(`  subgroup matrix configurations: none (${why})`);
  }
  const chosen = chooseCoopConfig(ctx.device, info, policy);
  const used = ctx.coop;
  const choice = used
    ? `cooperative matrices ON: ${used.component} ${used.M}×${used.N}×${used.K}, subgroups of ${used.subgroupSize}`
    : chosen
      ? `cooperative matrices OFF: ${chosen.component} ${chosen.M}×${chosen.N}×${chosen.K} was chosen but failed the start-up check (see the log above)`
      : `cooperative matrices OFF: chooseCoopConfig found no configuration under CLAWLOOP_GPU_MATMUL=${policy}`;
  lines.push(`  engine's choice (policy ${policy}): ${choice}`);
  return {
    lines,
    json: {
      name,
      software,
      info: { ...plainInfo(info) },
      adapterFeatures: a?.features ?? [],
      deviceFeatures: [...ctx.device.features].sort(),
      limits,
      configs: rows,
      policy,
      chosen: used,
      choice,
    },
  };
}

/** GPUAdapterInfo's fields are getters: copy them into a plain object for JSON. */
function plainInfo(info: GpuContext['adapterInfo']): Record<string, unknown> {
  const { vendor, architecture, device, description, subgroupMinSize, subgroupMaxSize, isFallbackAdapter } = info;
  return { vendor, architecture, device, description, subgroupMinSize, subgroupMaxSize, isFallbackAdapter };
}
