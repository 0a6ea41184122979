import type { GpuFigures } from './gpuBenchShapes.js';

export type PeerResult = { figures: GpuFigures & { peer: string; errors: string[] } } | { error: string };

const fmt = (x: number | null | undefined, digits = 0) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits));
const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a && b && Number.isFinite(a) && Number.isFinite(b) ? `${(a / b).toFixed(2)}x` : '-';

interface Row {
  label: string;
  ours: number | null | undefined;
  bf16: number | null | undefined;
  fp32: number | null | undefined;
  /** The goal against PyTorch BF16 (issue 14), as a predicate on ours/peer and its text. */
  goal?: { text: string; met: (r: number) => boolean };
}

function rows(ours: GpuFigures, bf16: GpuFigures | null, fp32: GpuFigures | null): Row[] {
  const out: Row[] = [];
  for (const k of Object.keys(ours.prefill_tok_s)) {
    out.push({
      label: `prefill ${k} tok/s`,
      ours: ours.prefill_tok_s[k],
      bf16: bf16?.prefill_tok_s[k],
      fp32: fp32?.prefill_tok_s[k],
      goal: { text: '>= 0.5x BF16', met: (r) => r >= 0.5 },
    });
  }
  for (const k of Object.keys(ours.decode_tok_s)) {
    // The GPU decoder's figure ('1 (GPU decoder)') is compared with PyTorch's batch 1.
    const batch = k.split(' ')[0];
    const goal = batch === '1' ? { text: '>= 1.0x HF eager', met: (r: number) => r >= 1 } : undefined;
    out.push({
      label: `decode batch ${k} tok/s`,
      ours: ours.decode_tok_s[k],
      bf16: bf16?.decode_tok_s[batch],
      fp32: fp32?.decode_tok_s[batch],
      goal,
    });
  }
  out.push({
    label: 'LoRA training tok/s',
    ours: ours.train_lora_tok_s,
    bf16: bf16?.train_lora_tok_s,
    fp32: fp32?.train_lora_tok_s,
    goal: { text: '>= 0.5x PEFT', met: (r) => r >= 0.5 },
  });
  const gib = (b: number | null | undefined) => (b === null || b === undefined ? b : b / 2 ** 30);
  // Memory: lower is better, so the goal reads on PyTorch/ours.
  out.push({
    label: 'peak GPU memory GiB',
    ours: gib(ours.peak_memory_bytes),
    bf16: gib(bf16?.peak_memory_bytes),
    fp32: gib(fp32?.peak_memory_bytes),
    goal: { text: '<= 1.5x BF16', met: (r) => r <= 1.5 },
  });
  return out;
}

/** Prints one model's table: ClawLoop, PyTorch BF16 and FP32, ratios, and whether each goal is met. */
export function printComparison(name: string, ours: { figures: GpuFigures; errors: string[] }, bf16: PeerResult, fp32: PeerResult): void {
  const b = 'figures' in bf16 ? bf16.figures : null;
  const f = 'figures' in fp32 ? fp32.figures : null;
  console.log(
    `${name}`.padEnd(34) +
      'ClawLoop'.padStart(11) +
      'PT BF16'.padStart(11) +
      'ratio'.padStart(8) +
      'PT FP32'.padStart(11) +
      'ratio'.padStart(8) +
      '   goal',
  );
  for (const r of rows(ours.figures, b, f)) {
    const digits = r.label.includes('GiB') ? 2 : 0;
    const vsBf16 = r.ours && r.bf16 ? r.ours / r.bf16 : NaN;
    const goal = r.goal ? `${r.goal.text}: ${Number.isFinite(vsBf16) ? (r.goal.met(vsBf16) ? 'met' : 'not met') : 'not measured'}` : '';
    console.log(
      r.label.padEnd(34) +
        fmt(r.ours, digits).padStart(11) +
        fmt(r.bf16, digits).padStart(11) +
        ratio(r.ours, r.bf16).padStart(8) +
        fmt(r.fp32, digits).padStart(11) +
        ratio(r.ours, r.fp32).padStart(8) +
        `   ${goal}`,
    );
  }
  for (const e of ours.errors) console.log(`  ClawLoop: ${e}`);
  for (const [label, p] of [
    ['BF16', bf16],
    ['FP32', fp32],
  ] as const) {
    if ('error' in p) console.log(`  PyTorch ${label}: ${p.error}`);
    else for (const e of p.figures.errors) console.log(`  PyTorch ${label}: ${e}`);
  }
  if (b) console.log(`  peer: ${b.peer}`);
}
