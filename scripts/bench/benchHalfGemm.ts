/**
 * `npm run bench:half-gemm [-- --tokens N] [--rounds N]`
 *
 * The products a LoRA step makes with a Qwen3-1.7B layer's frozen BF16 weights, at N tokens
 * (default 256): the forward x·Wᵀ and the input gradient dy·W of each projection (q, k, v, o,
 * gate, up, down), on each way the native addon can run them:
 * - packed: the addon's GEMM that widens W inside its packing (native/src/halfGemmPacked.h);
 * - widen:  W widened a cache-sized panel at a time for OpenBLAS's sgemm;
 * - f32:    OpenBLAS's sgemm on a float32 copy of W made beforehand (what widening every weight
 *           once at load would cost in time: it would double the weights' memory).
 * The ways alternate round by round so that a busy machine slows them alike; medians. Prints
 * GFLOP/s and the layer's time per way, with the CPU and the load average.
 */
import os from 'node:os';
import { loadNativeAddon } from '../../main/engine/backends/nativeAddon.js';
import { HALF_GEMM, KIND, type Buf, type NdAddon } from '../../main/engine/backends/native/ndAddon.js';
import { floatToBf16 } from '../../main/engine/formats/halfFloat.js';
import { Rng } from '../../main/util/random.js';
import { scriptArgs } from '../scriptArgs.js';
import { cpuLine, cpuSummary } from './cpuReport.js';

const USAGE = `Usage: npm run bench:half-gemm -- [--tokens N] [--rounds N]

A Qwen3-1.7B layer's BF16 weight products (forward and input gradient) at N tokens (default 256),
packed vs widen vs float32 weights; --rounds alternating repetitions (default 5).`;

/** [name, out, in] of a Qwen3-1.7B decoder layer's projections. */
const PROJECTIONS: Array<[string, number, number]> = [
  ['q', 2048, 2048],
  ['k', 1024, 2048],
  ['v', 1024, 2048],
  ['o', 2048, 2048],
  ['gate', 6144, 2048],
  ['up', 6144, 2048],
  ['down', 2048, 6144],
];
const WAYS = ['packed', 'widen', 'f32'] as const;
type Way = (typeof WAYS)[number];

function randomBf16(n: number, rng: Rng): Uint16Array {
  const scratch = new Float32Array(1);
  const view = new Uint32Array(scratch.buffer);
  return Uint16Array.from({ length: n }, () => floatToBf16(rng.normal() * 0.02, scratch, view));
}

interface Case {
  label: string;
  flops: number;
  run: (way: Way) => void;
}

/** The forward and input-gradient products of one projection W [out, in] at `t` tokens. */
function cases(nd: NdAddon, t: number, [name, out, inp]: [string, number, number], rng: Rng): Case[] {
  const w16 = nd.bufFromArray(randomBf16(out * inp, rng), KIND.bf16);
  const w32 = nd.bufWiden(w16);
  const x = nd.bufFromArray(
    Float32Array.from({ length: t * inp }, () => rng.normal()),
    KIND.f32,
  );
  const dy = nd.bufFromArray(
    Float32Array.from({ length: t * out }, () => rng.normal()),
    KIND.f32,
  );
  const product = (way: Way, a: Buf, n: number, k: number, tb: boolean) => {
    if (way !== 'f32') nd.setHalfGemm(HALF_GEMM[way]);
    nd.bufFree(nd.matmul(a, way === 'f32' ? w32 : w16, 1, t, n, k, false, tb, 0, 0));
  };
  const flops = 2 * t * out * inp;
  return [
    { label: `${name} x·Wᵀ`, flops, run: (way) => product(way, x, out, inp, true) },
    { label: `${name} dy·W`, flops, run: (way) => product(way, dy, inp, out, false) },
  ];
}

function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: { tokens: { type: 'string', default: '256' }, rounds: { type: 'string', default: '5' } },
  });
  const t = Number(values.tokens);
  const rounds = Number(values.rounds);
  const addon = loadNativeAddon();
  if (!addon) throw new Error('the native addon is not built: npm run build:native');
  const nd = addon.nd;
  if (!nd.cpu().features.packedGemm) throw new Error('the packed kernel cannot run on this CPU (it needs x86-64 with AVX2 and FMA)');
  const before = nd.cpu().halfGemm;
  const rng = new Rng(1);
  const all = PROJECTIONS.flatMap((p) => cases(nd, t, p, rng));
  const times = new Map<string, number[]>();
  const load0 = os.loadavg()[0];
  for (let r = 0; r <= rounds; r++) {
    for (const c of all) {
      for (const way of WAYS) {
        const t0 = performance.now();
        c.run(way);
        if (r > 0) times.set(`${c.label}/${way}`, [...(times.get(`${c.label}/${way}`) ?? []), (performance.now() - t0) / 1000]); // round 0 warms up
      }
    }
  }
  nd.setHalfGemm(HALF_GEMM[before]);
  console.log(cpuLine(cpuSummary()));
  console.log(
    `Qwen3-1.7B layer, BF16 weights, ${t} tokens, median of ${rounds} alternating rounds; load average ${load0.toFixed(1)} -> ${os.loadavg()[0].toFixed(1)}`,
  );
  console.log(`${'product'.padEnd(14)}${WAYS.map((w) => `${w} GFLOP/s`.padStart(16)).join('')}`);
  const layer = new Map<Way, number>(WAYS.map((w) => [w, 0]));
  for (const c of all) {
    const cells = WAYS.map((w) => {
      const s = median(times.get(`${c.label}/${w}`)!);
      layer.set(w, layer.get(w)! + s);
      return (c.flops / s / 1e9).toFixed(1).padStart(16);
    });
    console.log(`${c.label.padEnd(14)}${cells.join('')}`);
  }
  const packed = layer.get('packed')!;
  console.log(
    `layer total   ${WAYS.map((w) => `${w} ${(layer.get(w)! * 1000).toFixed(0)} ms (${(layer.get(w)! / packed).toFixed(2)}x packed's time)`).join(', ')}`,
  );
}

await main();
