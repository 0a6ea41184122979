/**
 * `npm run profile:gpu [-- --quick | --size full|small|tiny] [--skip ceilings,model] [--top N] [--json FILE]`
 *
 * One run for the rare minutes on a real GPU (docs/gpu.md "Profile"): the adapter and the engine's
 * choice of cooperative-matrix configuration; ceilings in raw WGSL and in the engine's kernels;
 * then prefill, decoding and one LoRA step of a 4-layer Qwen3-4B-shaped model with the full
 * vocabulary, kernel by kernel (GPU timestamp queries where the adapter has them), and one verdict
 * per bar of issue 37. On the software adapter (CLAWLOOP_WEBGPU_ADAPTER=software) the shapes are
 * cut and every figure is labelled: it checks the script, it does not measure a GPU.
 */
import fs from 'node:fs';
import os from 'node:os';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { gpuContext } from '../../main/engine/backends/webgpu/gpuContext.js';
import { parseModelConfig } from '../../main/engine/model/config.js';
import { probeGpuIsolated } from '../../main/engine/gpu/index.js';
import { adapterSection } from './gpuProfile/adapterSection.js';
import { attentionFigures, gemmVariants, gemvFigures, type KernelFigure } from './gpuProfile/engineCeilings.js';
import { GpuRecorder, tagKernels } from './gpuProfile/gpuRecorder.js';
import { ModelPhases, type PhaseProfile } from './gpuProfile/modelPhases.js';
import { describeOp } from './gpuProfile/opTags.js';
import { gpuMs, kernelRows, phaseLines, verdicts } from './gpuProfile/phaseReport.js';
import { PROFILE_SHAPES, type ProfileShapes } from './gpuProfile/profileShapes.js';
import { dispatchCost, readBandwidth } from './gpuProfile/rawCeilings.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run profile:gpu -- [--quick] [--size full|small|tiny] [--skip ceilings,model] [--top N] [--json FILE]

Profiles ClawLoop's WebGPU engine: adapter, raw ceilings, kernel ceilings, and a 4-layer
Qwen3-4B-shaped model's prefill, decoding and LoRA step kernel by kernel.
  --size   full (default on a GPU: the issue's shapes), small (default on the software adapter:
           narrow layers, full vocabulary), tiny (--quick: seconds; checks the script only)
  --skip   leave out sections: ceilings, model
  --top    kernel groups printed per phase (default 15; all are in --json)`;

function print(line = ''): void {
  console.log(line);
}

function ceilingLine(f: KernelFigure, label: string): string {
  const rate = [f.tflops !== undefined && `${f.tflops.toFixed(3)} TFLOP/s`, f.gbs !== undefined && `${f.gbs.toFixed(1)} GB/s`]
    .filter(Boolean)
    .join(', ');
  return `  ${f.what}${label}: ${f.ms.toFixed(3)} ms (${f.timedOn === 'gpu' ? 'GPU timestamps' : 'wall, read back'}), ${rate}  [${f.kernels.join(', ')}]`;
}

async function ceilings(rec: GpuRecorder, s: ProfileShapes, out: Record<string, unknown>): Promise<void> {
  const ctx = gpuContext()!;
  print(`\nceilings in raw WGSL${s.label}`);
  const bw = await readBandwidth(ctx, rec, s.bandwidthBytes);
  const onGpu = Number.isFinite(bw.gpuGBs)
    ? `${bw.gpuGBs.toFixed(1)} GB/s on the GPU clock`
    : 'GPU clock not measured (no timestamp queries)';
  print(`  read bandwidth over ${(bw.bytes / 2 ** 20).toFixed(0)} MiB: ${onGpu}, ${bw.wallGBs.toFixed(1)} GB/s wall (submit to done)`);
  const dc = await dispatchCost(ctx, rec, s.dispatches);
  print(
    `  empty dispatch: GPU ${Number.isFinite(dc.gpuUs) ? `${dc.gpuUs.toFixed(2)} µs (its own timed pass)` : 'not measured (no timestamp queries)'}; CPU ${dc.rawUs.toFixed(2)} µs raw API (${s.dispatches} in one submit), ${dc.roundTripUs.toFixed(0)} µs one dispatch submitted and waited for`,
  );
  print(
    `  one dispatch through the engine (GpuContext.run): ${dc.engineUs.toFixed(2)} µs CPU; one tfjs op (tf.add): ${dc.tfjsUs.toFixed(2)} µs CPU`,
  );
  out.raw = { readBandwidth: bw, dispatch: dc };
  print(`\nGEMM variants (ClawLoop's kernels)${s.label}`);
  const gemm = await gemmVariants(ctx, rec, s, s.reps);
  for (const f of gemm) print(ceilingLine(f, ''));
  print(`\nGEMV at the decode shapes (batch 1; GB/s of weights)${s.label}`);
  const gemv = await gemvFigures(ctx, rec, s, s.reps);
  for (const f of gemv) print(ceilingLine(f, ''));
  print(`\nattention${s.label}`);
  const attention = await attentionFigures(rec, s, s.reps);
  for (const f of attention) print(ceilingLine(f, ''));
  Object.assign(out, { gemm, gemv, attention });
}

async function model(rec: GpuRecorder, s: ProfileShapes, top: number, why: string | null, out: Record<string, unknown>): Promise<void> {
  const config = parseModelConfig(s.model);
  const t0 = performance.now();
  const phases = ModelPhases.create(gpuContext()!, rec, config, s);
  print(
    `\nmodel: ${config.numLayers} layers of hidden ${config.hiddenSize}, intermediate ${config.intermediateSize}, heads ${config.numHeads}/${config.numKvHeads}×${config.headDim}, ` +
      `vocabulary ${config.vocabSize}; random BF16 projection weights (${(phases.weightBytes / 2 ** 30).toFixed(2)} GiB in use, ready in ${((performance.now() - t0) / 1000).toFixed(1)} s)${s.label}`,
  );
  const done: Record<string, PhaseProfile> = {};
  const json: Record<string, unknown> = {};
  try {
    for (const [key, run] of [
      ['prefill', () => phases.prefill()],
      ['decode', () => phases.decode()],
      ['lora', () => phases.loraStep()],
    ] as const) {
      try {
        const p = await run();
        done[key] = p;
        print();
        for (const line of phaseLines(p, config.numLayers, top, s.label)) print(line);
        const { records: _records, ...rest } = p;
        json[key] = {
          ...rest,
          gpuBusyMs: gpuMs(p.records),
          kernels: kernelRows(p, config.numLayers),
          pipelines: kernelRows(p, config.numLayers, 'pipeline'),
        };
      } catch (err) {
        print(`\n${key}: FAILED: ${(err as Error).message.split('\n')[0]}`);
        json[key] = { error: (err as Error).message };
      }
    }
  } finally {
    phases.dispose();
  }
  print(`\nverdicts (issue 37's bars, for a 36-layer Qwen3-4B estimated from ${config.numLayers} layers)`);
  const v = verdicts(done, config, phases.weightBytes, why);
  for (const x of v) print(`  ${x.goal}: ${x.verdict}`);
  Object.assign(out, { model: { config: s.model, phases: json }, verdicts: v });
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: {
      quick: { type: 'boolean', default: false },
      size: { type: 'string' },
      skip: { type: 'string', default: '' },
      top: { type: 'string', default: '15' },
      json: { type: 'string' },
    },
  });
  const t0 = performance.now();
  process.env.CLAWLOOP_WEBGPU_PRECISE_TIMESTAMPS ??= '1'; // before Dawn starts: timestamps to the ns
  const probe = await probeGpuIsolated();
  if (!probe.usable) {
    print(
      `profile:gpu: no WebGPU adapter: ${probe.problems.join(' ') || 'none found'}. Nothing measured; \`clawloop doctor\` says what to install.`,
    );
    process.exitCode = 1;
    return;
  }
  const software = probe.adapter?.software ?? false;
  const size = (values.quick ? 'tiny' : (values.size ?? (software ? 'small' : 'full'))) as ProfileShapes['size'];
  const s = PROFILE_SHAPES[size];
  if (!s) throw new Error(`--size is '${values.size}'; valid: ${Object.keys(PROFILE_SHAPES).join(', ')}`);
  const skip = new Set(values.skip.split(',').filter(Boolean));
  for (const k of skip) if (k !== 'ceilings' && k !== 'model') throw new Error(`--skip '${k}'; valid: ceilings, model`);
  await initBackend('webgpu', { log: print });
  const ctx = gpuContext()!;
  print(
    `profile:gpu at ${new Date().toISOString()} on ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} threads), size ${size}${s.label}`,
  );
  const adapter = adapterSection(ctx, probe);
  for (const line of adapter.lines) print(line);
  if (software) print('SOFTWARE ADAPTER (Mesa llvmpipe on the CPU): every figure below checks the script; none is GPU speed');
  const rec = new GpuRecorder(ctx.device);
  print(
    `per-kernel timing: ${rec.timestamps ? 'GPU timestamp queries, one compute pass per dispatch (timestamp_quantization off)' : 'none (the adapter has no timestamp-query): counts and wall times only'}`,
  );
  tagKernels(rec, describeOp(parseModelConfig(s.model).vocabSize));
  const out: Record<string, unknown> = { size, label: s.label.trim(), software, adapter: adapter.json, timestamps: rec.timestamps };
  if (!skip.has('ceilings')) await ceilings(rec, s, out);
  const why = software ? 'software adapter' : size !== 'full' ? `cut shapes (--size ${size})` : null;
  if (!skip.has('model')) await model(rec, s, Number(values.top), why, out);
  out.seconds = (performance.now() - t0) / 1000;
  print(`\nprofile:gpu done in ${(out.seconds as number).toFixed(0)} s; tfjs tensors left: ${tf.memory().numTensors}`);
  if (values.json) {
    fs.writeFileSync(values.json, JSON.stringify(out, null, 2) + '\n');
    print(`wrote ${values.json}`);
  }
}

await main();
process.exit(process.exitCode ?? 0); // a Dawn instance would keep the process alive
