import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { adapterChoice, DawnUnavailableError, openAdapter } from './dawn.js';
import type { GpuReport } from './gpuReport.js';
import type { GpuAdapter } from './gpuTypes.js';
import { noAdapterHints, noSoftwareAdapterHints } from './driverHints.js';
import { dawnInstanceFlags, kernelFeatures } from './features.js';

/**
 * Looks for a GPU adapter in this process and describes it. Loads Dawn, which keeps the process
 * alive while its instance exists: servers and commands call {@link probeGpuIsolated} instead.
 */
export async function probeGpu(env: NodeJS.ProcessEnv = process.env): Promise<GpuReport> {
  let requested: 'hardware' | 'software' = 'hardware';
  try {
    requested = adapterChoice(env);
    const { adapter } = await openAdapter({ choice: requested, env, dawnFlags: dawnInstanceFlags(requested, env) });
    if (!adapter) {
      const problems = requested === 'software' ? noSoftwareAdapterHints() : noAdapterHints(env);
      return { requested, usable: false, adapter: null, problems, dawnMessages: [] };
    }
    return { requested, usable: true, adapter: describeAdapter(adapter, requested), problems: adapterProblems(adapter, requested), dawnMessages: [] };
  } catch (err) {
    const problems = [err instanceof DawnUnavailableError ? err.message : `looking for a GPU failed: ${(err as Error).message}`];
    return { requested, usable: false, adapter: null, problems, dawnMessages: [] };
  }
}

function isSoftware(a: GpuAdapter, requested: string): boolean {
  const name = `${a.info.vendor} ${a.info.architecture} ${a.info.device} ${a.info.description}`;
  return requested === 'software' || a.info.isFallbackAdapter === true || /llvmpipe|lavapipe|swiftshader|software/i.test(name);
}

function describeAdapter(a: GpuAdapter, requested: 'hardware' | 'software'): NonNullable<GpuReport['adapter']> {
  const k = kernelFeatures(a.features);
  return {
    vendor: a.info.vendor,
    architecture: a.info.architecture,
    device: a.info.device,
    description: a.info.description,
    software: isSoftware(a, requested),
    features: [...a.features].sort(),
    kernels: { subgroups: k.subgroups, shaderF16: k.shaderF16, subgroupMatrix: k.subgroupMatrix },
    maxStorageBufferBindingSize: a.limits.maxStorageBufferBindingSize,
    maxBufferSize: a.limits.maxBufferSize,
  };
}

function adapterProblems(a: GpuAdapter, requested: 'hardware' | 'software'): string[] {
  if (requested === 'hardware' && isSoftware(a, requested)) {
    return ['this adapter is a software rasteriser running on the CPU: --backend wasm is faster. Install your GPU vendor\'s Vulkan driver for a real GPU.'];
  }
  return [];
}

/** Dawn's own warnings worth showing (it prints them on stderr while it looks for adapters). */
function dawnMessages(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => /^(Warning|Error)/.test(l.trim()) && !/artificially reduced/.test(l))
    .map((l) => l.trim())
    .slice(0, 8);
}

/**
 * {@link probeGpu} in a child process: Dawn and any driver fault stay out of the caller (the HTTP
 * thread, a CLI command), and Dawn's stderr warnings are collected into the report.
 * @param timeoutMs how long to wait for the driver; default 30 000.
 */
export function probeGpuIsolated(opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<GpuReport> {
  const script = fileURLToPath(new URL('./probeGpuChild.js', import.meta.url));
  const env = opts.env ?? process.env;
  const requested = (() => {
    try {
      return adapterChoice(env);
    } catch {
      return 'hardware' as const;
    }
  })();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      try {
        const report = JSON.parse(out) as GpuReport;
        resolve({ ...report, dawnMessages: dawnMessages(err) });
      } catch {
        const why = signal ? `was stopped (${signal}) after ${opts.timeoutMs ?? 30_000} ms` : `exited with code ${code}`;
        const problems = [`looking for a GPU ${why}; the GPU driver may be hanging or crashing`];
        resolve({ requested, usable: false, adapter: null, problems, dawnMessages: dawnMessages(err) });
      }
    });
  });
}
