/**
 * `npm run bench:gpu [-- --models qwen3-0.6b,qwen3-4b] [--weights bf16|f16|f32] [--iters N] [--json FILE] [--no-pytorch]`
 *
 * ClawLoop on WebGPU against PyTorch (CUDA, BF16 and FP32, when python3's torch finds a GPU) on
 * Qwen3-0.6B- and 4B-shaped random models: prefill tok/s, decode tok/s at batch 1 and 8, LoRA
 * training tok/s and peak GPU memory, with the ratios and the goals of issue 14. Without a GPU it
 * says so in one line and exits 0. CLAWLOOP_WEBGPU_ADAPTER=software runs a tiny model on Mesa's
 * software rasteriser, to check the benchmark itself: those figures are not speed. ClawLoop keeps
 * the projection weights in BF16 by default (as Qwen3's checkpoints store them; --weights f32 for
 * float32) and computes in float32.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { initBackend } from '../../main/engine/backends/backend.js';
import type { WeightStorage } from '../../main/engine/model/causalLM.js';
import { parameterCount, parseModelConfig } from '../../main/engine/model/config.js';
import { formatGpuReport, probeGpuIsolated } from '../../main/engine/gpu/index.js';
import { DEFAULT_WORKLOAD, GPU_BENCH_SHAPES, TINY_WORKLOAD, type GpuFigures, type GpuWorkload } from './gpuBenchShapes.js';
import { measureClawLoop } from './gpuWorkloads.js';
import { printComparison, type PeerResult } from './gpuBenchReport.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run bench:gpu -- [--models qwen3-0.6b,qwen3-4b] [--weights bf16|f16|f32] [--iters N] [--json FILE] [--no-pytorch]

ClawLoop on WebGPU against PyTorch on Qwen3-shaped models: prefill, decode, LoRA training, memory.`;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** Pythons to try for the PyTorch peer, first one with torch wins: CLAWLOOP_PYTHON, python3 on PATH, Debian's. */
const PYTHONS = [process.env.CLAWLOOP_PYTHON, 'python3', '/usr/bin/python3'].filter((p): p is string => !!p);
let python = PYTHONS[0];

/** Why the PyTorch peer cannot run (no torch, or torch without a CUDA GPU), or null when it can. */
async function torchCuda(): Promise<string | null> {
  let noCuda: string | null = null;
  for (const p of PYTHONS) {
    try {
      const { stdout } = await promisify(execFile)(p, ['-c', 'import torch; print(torch.cuda.is_available())'], { timeout: 120_000 });
      if (stdout.trim() === 'True') {
        python = p;
        return null;
      }
      noCuda = `torch (${p}) finds no CUDA GPU`;
    } catch {
      // no such python, or no torch in it: try the next
    }
  }
  return noCuda ?? `no python with torch found (tried ${PYTHONS.join(', ')}; CLAWLOOP_PYTHON names another)`;
}

async function runPyTorch(config: object, w: GpuWorkload, dtype: 'bf16' | 'fp32'): Promise<PeerResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-bench-gpu-'));
  try {
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
    fs.writeFileSync(path.join(dir, 'workload.json'), JSON.stringify(w));
    const script = path.join(ROOT, 'scripts', 'reference', 'bench_gpu.py');
    const args = [script, '--config', path.join(dir, 'config.json'), '--workload', path.join(dir, 'workload.json'), '--dtype', dtype];
    const { stdout } = await promisify(execFile)(python, args, { timeout: 60 * 60_000, maxBuffer: 1 << 24 });
    const r = JSON.parse(stdout.trim().split('\n').at(-1)!);
    return 'error' in r ? { error: r.error } : { figures: r as GpuFigures & { peer: string; errors: string[] } };
  } catch (err) {
    return { error: `PyTorch ${dtype} failed: ${(err as Error).message.split('\n')[0]}` };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: {
      models: { type: 'string' },
      weights: { type: 'string', default: 'bf16' },
      iters: { type: 'string' },
      json: { type: 'string' },
      'no-pytorch': { type: 'boolean', default: false },
    },
  });
  const gpu = await probeGpuIsolated();
  const software = gpu.requested === 'software';
  if (!gpu.usable || (gpu.adapter?.software && !software)) {
    const why = gpu.adapter ? 'the only adapter is a software rasteriser' : (gpu.problems[0] ?? 'no WebGPU adapter').replace(/\.$/, '');
    console.log(`bench:gpu: no GPU here: ${why}. Nothing measured; \`clawloop doctor\` says what to install.`);
    return;
  }
  for (const line of formatGpuReport(gpu)) console.log(line);
  if (software) console.log('software adapter: this run checks that the benchmark works; its figures are not speed');
  const models = (values.models ?? (software ? 'tiny' : 'qwen3-0.6b,qwen3-4b')).split(',').map((m) => m.trim());
  for (const m of models) if (!GPU_BENCH_SHAPES[m]) throw new Error(`unknown model '${m}'; valid: ${Object.keys(GPU_BENCH_SHAPES).join(', ')}`);
  const workload = { ...(software ? TINY_WORKLOAD : DEFAULT_WORKLOAD), ...(values.iters ? { iters: Number(values.iters) } : {}) };
  const weights = values.weights as WeightStorage;
  if (!['bf16', 'f16', 'f32'].includes(weights)) throw new Error(`--weights is '${values.weights}'; valid: bf16, f16, f32`);
  console.log(`ClawLoop: projection weights stored ${weights}, arithmetic float32`);
  await initBackend('webgpu', { log: (l) => console.log(l) });
  const noTorch = values['no-pytorch'] ? 'skipped (--no-pytorch)' : await torchCuda();
  if (noTorch) console.log(`PyTorch: not measured: ${noTorch}`);
  const results: Record<string, unknown> = { gpu: gpu.adapter, workload, weights };
  for (const name of models) {
    const config = parseModelConfig(GPU_BENCH_SHAPES[name]);
    console.log(`\n${name}: ${(parameterCount(config) / 1e9).toFixed(2)} B parameters, random weights`);
    const ours = await measureClawLoop(config, workload, weights, (l) => console.log(l));
    const bf16 = noTorch ? { error: noTorch } : await runPyTorch(GPU_BENCH_SHAPES[name], workload, 'bf16');
    const fp32 = noTorch ? { error: noTorch } : await runPyTorch(GPU_BENCH_SHAPES[name], workload, 'fp32');
    printComparison(name, ours, bf16, fp32);
    results[name] = { clawloop: ours, pytorch_bf16: bf16, pytorch_fp32: fp32 };
  }
  if (values.json) {
    fs.writeFileSync(values.json, JSON.stringify(results, null, 2) + '\n');
    console.log(`wrote ${values.json}`);
  }
}

await main();
process.exit(0); // a Dawn instance would keep the process alive
