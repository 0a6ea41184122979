/**
 * What every benchmark figure is printed next to: the CPU's model and the extensions that decide
 * kernel speed (AVX2, AVX-512, AVX-512-BF16, AMX), the physical cores, the thread count used and
 * OpenBLAS's kernel set. Ratios against a peer move with all of these (an AMD Zen 5 and an Intel
 * Xeon with AMX rank the same code differently), so a figure without them is not comparable.
 */
import fs from 'node:fs';
import os from 'node:os';
import { loadNativeAddon } from '../../main/engine/backends/nativeAddon.js';
import { halfGemmMode } from '../../main/engine/backends/native/halfGemmMode.js';

export interface CpuSummary {
  model: string;
  features: Record<string, boolean>;
  physicalCores: number | null;
  threads: number;
  blasCore: string | null;
  halfGemm: string | null;
  /** The kernel decoding's BF16 matrix-vector products run on (avx512bf16, avx512f, avx2, scalar). */
  gemv: string | null;
}

const FLAGS = ['avx2', 'avx512f', 'avx512bf16', 'amx'] as const;

/** From the addon when it loads (cpuid), else from /proc/cpuinfo's flags. */
export function cpuSummary(): CpuSummary {
  const addon = loadNativeAddon();
  if (addon) {
    const c = addon.nd.cpu();
    const f = c.features;
    return {
      model: c.model || os.cpus()[0]?.model || 'unknown CPU',
      features: {
        avx2: f.avx2,
        avx512f: f.avx512f,
        avx512bf16: f.avx512bf16,
        amx: f.amxBf16 && f.amxTile,
        neon: f.neon,
        blasSbgemm: f.blasSbgemm,
      },
      physicalCores: c.physicalCores || null,
      threads: addon.info().threads,
      blasCore: c.blasCore,
      halfGemm: halfGemmMode(addon.nd), // what the backend will set, from CLAWLOOP_BF16_GEMM or the CPU's default
      gemv: c.gemv.bf16,
    };
  }
  let flags = new Set<string>();
  try {
    const line = fs
      .readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('flags'));
    flags = new Set((line?.split(':')[1] ?? '').trim().split(/\s+/));
  } catch {
    // not Linux: features unknown
  }
  return {
    model: os.cpus()[0]?.model ?? 'unknown CPU',
    features: { avx2: flags.has('avx2'), avx512f: flags.has('avx512f'), avx512bf16: flags.has('avx512_bf16'), amx: flags.has('amx_bf16') },
    physicalCores: null,
    threads: os.availableParallelism(),
    blasCore: null,
    halfGemm: null,
    gemv: null,
  };
}

/** Short: "AMD EPYC [avx2 -avx512f -avx512bf16 -amx; gemv avx2]", printed beside each figure. */
export function cpuTag(c: CpuSummary): string {
  const gemv = c.gemv ? `; gemv ${c.gemv}` : '';
  return `${c.model} [${FLAGS.map((f) => (c.features[f] ? f : `-${f}`)).join(' ')}${gemv}]`;
}

/** Long: the tag, cores, threads, OpenBLAS kernel set and the BF16 product path. */
export function cpuLine(c: CpuSummary): string {
  const parts = [`${c.physicalCores ?? '?'} physical cores`, `${c.threads} threads`];
  if (c.blasCore) parts.push(`OpenBLAS ${c.blasCore}`);
  if (c.halfGemm) parts.push(`16-bit weight products: ${c.halfGemm}${c.features.blasSbgemm ? '' : ' (this OpenBLAS has no sbgemm)'}`);
  return `CPU: ${cpuTag(c)}; ${parts.join(', ')}`;
}
