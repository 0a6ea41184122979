import type { ModelConfig } from '../../../main/engine/model/config.js';
import type { DispatchRecord } from './gpuRecorder.js';
import type { PhaseProfile } from './modelPhases.js';

/*
 * How a profiled phase is printed: one summary line (wall, GPU-busy, counters per layer, memory
 * peaks), then its kernels grouped by op, shape and pipeline; and the verdict of each bar.
 */

export interface KernelRow {
  /** tfjs op, shapes and the pipeline that ran it. */
  kernel: string;
  calls: number;
  perLayer: number;
  ms: number;
  percent: number;
  tflops: number;
  gbs: number;
}

const gib = (b: number) => (b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(2)} GiB` : `${(b / 2 ** 20).toFixed(1)} MiB`);
const kib = (b: number) => (b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(1)} MiB` : `${(b / 1024).toFixed(1)} KiB`);

/** Sum of GPU ms of records (NaN when none was timed). */
export function gpuMs(records: DispatchRecord[]): number {
  const timed = records.filter((r) => Number.isFinite(r.ns));
  return timed.length ? timed.reduce((s, r) => s + r.ns, 0) / 1e6 : NaN;
}

const timeKey = (r: { ms: number }) => (Number.isFinite(r.ms) ? r.ms : -1);

/** Kernel groups, heaviest first; `perLayer` counts calls per layer and per step (decode: per token). */
export function kernelRows(p: PhaseProfile, layers: number, by: 'op' | 'pipeline' = 'op'): KernelRow[] {
  const groups = new Map<string, DispatchRecord[]>();
  for (const r of p.records) {
    const key = by === 'op' ? `${r.tag.name} → ${r.pipeline}` : r.pipeline;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  const total = gpuMs(p.records);
  return [...groups]
    .map(([kernel, rs]) => {
      const ms = gpuMs(rs);
      const flops = rs.reduce((s, r) => s + r.tag.flops * r.share, 0);
      const bytes = rs.reduce((s, r) => s + r.tag.bytes * r.share, 0);
      return {
        kernel,
        calls: rs.length,
        perLayer: rs.length / layers / p.steps,
        ms,
        percent: (100 * ms) / total,
        tflops: flops / ms / 1e9,
        gbs: bytes / ms / 1e6,
      };
    })
    .sort((a, b) => timeKey(b) - timeKey(a) || b.calls - a.calls);
}

/** The phase's lines: summary, counters per layer, memory, and its `top` kernels. */
export function phaseLines(p: PhaseProfile, layers: number, top: number, label: string): string[] {
  const c = p.counts;
  const busy = gpuMs(p.records);
  const div = layers * p.steps;
  const per = (n: number) => (n / div).toFixed(1);
  const unit = p.steps > 1 ? 'per layer per token' : 'per layer';
  const lines = [
    `${p.name}${label}: ${p.wallMs.toFixed(1)} ms wall, ${((p.tokens / p.wallMs) * 1000).toFixed(1)} tok/s; ` +
      (Number.isFinite(busy)
        ? `GPU busy ${busy.toFixed(1)} ms (${((100 * busy) / p.wallMs).toFixed(0)} % of wall)`
        : 'GPU busy: no timestamp queries on this adapter'),
    `  ${unit} (÷ ${div}, head and loss included): ${per(c.dispatches)} dispatches, ${per(c.submits)} submits, ` +
      `${per(c.writes)} writeBuffer (${kib(c.writeBytes / div)}), ${per(c.staging)} mapped staging buffers (${kib(c.stagingBytes / div)}), ${kib(c.readbackBytes / div)} read back`,
    `  totals: ${c.dispatches} dispatches, ${c.submits} submits, ${c.writes} writeBuffer, ${c.staging} staging, ${kib(c.readbackBytes)} read back`,
    `  memory: in-use peak ${gib(p.inUsePeak)}, reserved peak (in use + pool) ${gib(p.reservedPeak)}`,
  ];
  lines.push(...table(kernelRows(p, layers), p.steps, top, 'kernel (op [shapes] → pipeline)'));
  // Shapes that grow every token (the KV cache) split an op into many rows: the same by pipeline.
  lines.push(...table(kernelRows(p, layers, 'pipeline'), p.steps, Math.ceil(top / 2), 'by pipeline'));
  return lines;
}

function table(rows: KernelRow[], steps: number, top: number, title: string): string[] {
  const lines: string[] = [];
  lines.push(
    `  ${(steps > 1 ? 'calls/l/tok' : 'calls/layer').padStart(11)} ${'ms'.padStart(9)} ${'%'.padStart(5)} ${'TFLOP/s'.padStart(8)} ${'GB/s'.padStart(8)}  ${title}`,
  );
  for (const r of rows.slice(0, top)) {
    const num = (x: number, d: number, w: number) => (Number.isFinite(x) && x > 0 ? x.toFixed(d) : '—').padStart(w);
    lines.push(
      `  ${r.perLayer.toFixed(2).padStart(11)} ${num(r.ms, 3, 9)} ${num(r.percent, 1, 5)} ${num(r.tflops, 2, 8)} ${num(r.gbs, 0, 8)}  ${r.kernel}`,
    );
  }
  if (rows.length > top) lines.push(`  … ${rows.length - top} more (in --json)`);
  return lines;
}

/**
 * The bars of issue 37, against PyTorch on an NVIDIA H200 (docs/bench-gpu/h200-qwen3-4b.json: the
 * only same-shapes peer run committed). A real verdict needs bench:gpu's same-run ratio; this line
 * is the profile's estimate for a 36-layer Qwen3-4B.
 */
const BARS = {
  prefill: { peer: 48302.8, ratio: 0.3, what: 'prefill 4×1024 tok/s vs PyTorch BF16' },
  decode: { peer: 29.86, ratio: 1.0, what: 'decode batch 1 tok/s vs Hugging Face eager' },
  lora: { peer: 5785.3, ratio: 0.3, what: 'LoRA 8×128 tok/s vs PyTorch+PEFT' },
  memory: { peer: 19213876224, ratio: 1.5, what: 'LoRA 8×128 in-use memory vs PyTorch' },
};
export const QWEN3_4B_LAYERS = 36;

/** Wall time of the phase scaled to 36 layers: the layers' share of GPU time ×9, the head's as is. */
function scaledMs(p: PhaseProfile, layers: number): number {
  const head = gpuMs(p.records.filter((r) => r.tag.head));
  const all = gpuMs(p.records);
  const h = Number.isFinite(head) ? head : 0;
  const rest = Number.isFinite(all) ? all - h : 1;
  const k = QWEN3_4B_LAYERS / layers;
  return p.wallMs * ((h + k * rest) / (h + rest));
}

export interface Verdict {
  goal: string;
  verdict: string;
  estimate?: number;
}

/** One verdict per bar; `why` (software adapter, cut shapes) replaces all of them when set. */
export function verdicts(phases: Record<string, PhaseProfile>, config: ModelConfig, weightBytes: number, why: string | null): Verdict[] {
  const layers = config.numLayers;
  const v = (key: keyof typeof BARS, ours: number, higherIsBetter: boolean, unit: (x: number) => string): Verdict => {
    const bar = BARS[key];
    if (why) return { goal: bar.what, verdict: `not measured: ${why}` };
    const ratio = ours / bar.peer;
    const met = higherIsBetter ? ratio >= bar.ratio : ratio <= bar.ratio;
    return {
      goal: bar.what,
      estimate: ours,
      verdict: `${met ? 'MET' : 'NOT MET'} (estimate) ${unit(ours)} = ${ratio.toFixed(2)}× (bar ${higherIsBetter ? '≥' : '≤'} ${bar.ratio}×; H200 peer ${unit(bar.peer)})`,
    };
  };
  const tokS = (p: PhaseProfile | undefined) => (p ? p.tokens / (scaledMs(p, layers) / 1000) : NaN);
  const lora = phases.lora;
  // Memory: the 4 layers' share (in-use peak less the embedding and norms) times 9, plus that share.
  const layerWeights = (weightBytes - nonLayerBytes(config)) / layers;
  const memory = lora ? lora.inUsePeak + (QWEN3_4B_LAYERS - layers) * (layerWeights + (lora.inUsePeak - weightBytes) / layers) : NaN;
  const n = (d: number) => (x: number) => `${x.toFixed(d)}`;
  return [
    v('prefill', tokS(phases.prefill), true, n(0)),
    v('decode', tokS(phases.decode), true, n(1)),
    v('lora', tokS(lora), true, n(0)),
    v('memory', memory, false, gib),
  ];
}

/** Bytes of the tied embedding (float32) and the final norm: what does not grow with layers. */
function nonLayerBytes(c: ModelConfig): number {
  return (c.vocabSize * c.hiddenSize + c.hiddenSize) * 4;
}
