import { cpuReport } from '../engine/index.js';
import { formatGpuReport, probeGpuIsolated } from '../engine/gpu/index.js';
import { parse } from './args.js';
import type { Io } from './io.js';

export const DOCTOR_USAGE = `Usage: clawloop doctor [--json]

Says what ClawLoop can run on here: the CPU backends (the native kernels, or why they are off)
and the GPU (the WebGPU adapter found for --backend webgpu, or why there is none, and what to
install). The GPU is probed in a separate process, so a faulty driver cannot take this one down.

  --json   print {"cpu": {...}, "gpu": {...}}

Environment: CLAWLOOP_WEBGPU_ADAPTER=software looks for Mesa's software rasteriser instead of a
GPU; VK_DRIVER_FILES names a Vulkan driver manifest (NVIDIA containers).`;

export async function doctorCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, { json: { type: 'boolean', default: false } });
  const cpu = cpuReport();
  const gpu = await probeGpuIsolated();
  if (values.json) {
    io.out(JSON.stringify({ cpu, gpu }, null, 2) + '\n');
    return 0;
  }
  const lines = [
    `CPU: ${cpu.cpu}, ${cpu.cores} threads; default backend ${cpu.defaultBackend}`,
    cpu.native.loaded
      ? `  native kernels: ${cpu.native.blas}, ${cpu.native.threads} threads`
      : `  native kernels: off (${cpu.native.reason})`,
    ...formatGpuReport(gpu),
  ];
  io.out(lines.join('\n') + '\n');
  return 0;
}
