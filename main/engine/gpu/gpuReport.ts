/** What `clawloop doctor` (and later the Connect screen) shows about the GPU. */
export interface GpuReport {
  /** The adapter asked for: 'hardware' (default) or 'software' (CLAWLOOP_WEBGPU_ADAPTER=software). */
  requested: 'hardware' | 'software';
  /** Whether `--backend webgpu` can run here. */
  usable: boolean;
  /** The adapter Dawn chose, or null when there is none. */
  adapter: GpuAdapterReport | null;
  /** Why there is no usable adapter, or what limits it: each line says what to do. */
  problems: string[];
  /** Driver messages Dawn printed while looking (e.g. a Vulkan loader that is missing). */
  dawnMessages: string[];
}

export interface GpuAdapterReport {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** A software (CPU) implementation: correct, never fast. */
  software: boolean;
  features: string[];
  /** What ClawLoop's kernels use on this adapter. */
  kernels: { subgroups: boolean; shaderF16: boolean; subgroupMatrix: boolean };
  /** Largest buffer one kernel can bind, and largest buffer, in bytes. */
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
}

/** One line per fact, as `clawloop doctor` prints them. */
export function formatGpuReport(r: GpuReport): string[] {
  const lines: string[] = [];
  const a = r.adapter;
  if (a) {
    const name = [a.vendor, a.architecture, a.device, a.description].filter((s) => s).join(' / ') || '(unnamed adapter)';
    lines.push(`GPU adapter: ${name}${a.software ? ' (software rasteriser: correct, not fast)' : ''}`);
    const k = a.kernels;
    lines.push(
      `  kernels: subgroups ${k.subgroups ? 'yes' : 'no'}, shader-f16 ${k.shaderF16 ? 'yes' : 'no'}, cooperative matrices ${k.subgroupMatrix ? 'yes' : 'no'}`,
    );
    lines.push(`  largest binding ${mib(a.maxStorageBufferBindingSize)}, largest buffer ${mib(a.maxBufferSize)}`);
  } else {
    lines.push(`GPU adapter: none found (${r.requested === 'software' ? 'software adapter requested' : 'hardware'})`);
  }
  lines.push(`--backend webgpu: ${r.usable ? 'usable' : 'not usable'}`);
  for (const p of r.problems) lines.push(`  - ${p}`);
  for (const m of r.dawnMessages) lines.push(`  dawn: ${m}`);
  return lines;
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}
