/**
 * The 1.7B part of `npm run bench:engine -- --large`: random BF16 weights in Qwen3-1.7B shapes
 * (largeModel.ts), loaded the way a user's checkpoint is (memory-mapped on the native backend),
 * against PyTorch on the same files (BF16, and FP32 with the weights widened) and llama.cpp on the
 * same weights converted to a BF16 GGUF. Every workload runs alone in its own process, so each
 * peak RSS is that workload's. Figures: prefill and decode tokens/s, LoRA step time at --large-seq,
 * and the peak memory of a LoRA step at 1,024 tokens. Decoding reads every weight matrix once a
 * token, so its tokens/s times the weights' bytes is the bandwidth it streams; that is printed
 * beside the machine's read bandwidth, measured in the same run (addon.nd.readBandwidth).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ggufFromTensors, vocabFromTokenizerJson } from '../../main/engine/formats/ggufExport.js';
import { writeGguf, type GgufTensor } from '../../main/engine/formats/ggufFile.js';
import { WeightFiles } from '../../main/engine/formats/weightFiles.js';
import { parseModelConfig } from '../../main/engine/model/config.js';
import { loadNativeAddon } from '../../main/engine/backends/nativeAddon.js';
import type { CpuSummary } from './cpuReport.js';
import { cpuTag } from './cpuReport.js';
import { QWEN3_1_7B, writeRandomBf16Model } from './largeModel.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const run = promisify(execFile);

export interface LargeOptions {
  dir: string;
  keep: boolean;
  threads: number;
  seq: number;
  budget: number;
  /** Skip the peers (ClawLoop's figures only). */
  oursOnly: boolean;
  /** Which workloads run (ours and the peers'); default all of LARGE_WORKLOADS. */
  workloads: ReadonlySet<LargeWorkload>;
  /** Which peers run (unless oursOnly); default both. */
  peers: ReadonlySet<'pytorch' | 'llamacpp'>;
}

export const LARGE_WORKLOADS = ['prefill', 'decode', 'lora', 'lora1024'] as const;
export type LargeWorkload = (typeof LARGE_WORKLOADS)[number];

/** Parses a comma-separated list (--large-workloads, --large-peers) of some of `valid`; throws on an unknown name. */
export function parseList<T extends string>(option: string, raw: string, valid: readonly T[]): Set<T> {
  const names = raw.split(',').map((w) => w.trim()).filter(Boolean);
  const bad = names.filter((w) => !(valid as readonly string[]).includes(w));
  if (bad.length || !names.length) throw new Error(`${option} '${raw}': expected a comma-separated list of ${valid.join(', ')}`);
  return new Set(names as T[]);
}

type Result = Record<string, number | string> | { error: string };

/** Runs a child that prints one JSON line last; errors become a one-line reason. */
async function child(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Result> {
  try {
    const { stdout } = await run(cmd, args, { maxBuffer: 1 << 24, env: { ...process.env, ...env }, timeout: 3600_000 });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    return { error: ((e.stderr ?? '').trim().split('\n').pop() || e.message).slice(0, 300) };
  }
}

function ours(o: LargeOptions, workload: string, extra: string[] = []): Promise<Result> {
  const script = path.join(ROOT, 'dist', 'scripts', 'bench', 'largeWorkload.js');
  return child(process.execPath, [script, '--dir', o.dir, '--workload', workload, ...extra], { CLAWLOOP_THREADS: String(o.threads) });
}

function pytorch(o: LargeOptions, workload: string, dtype: string, extra: string[] = []): Promise<Result> {
  const python = process.env.CLAWLOOP_PYTHON ?? '/usr/bin/python3';
  const script = path.join(ROOT, 'scripts', 'reference', 'bench_large.py');
  return child(python, [script, o.dir, '--workload', workload, '--dtype', dtype, '--threads', String(o.threads), '--budget', String(o.budget), ...extra]);
}

/** The same weights as a BF16 GGUF (norms in F32, as llama.cpp's converter writes them). */
function writeBf16Gguf(dir: string, file: string): void {
  const config = parseModelConfig(QWEN3_1_7B);
  const files = WeightFiles.open(dir);
  const hf = new Map<string, GgufTensor>();
  try {
    for (const name of files.names()) {
      const e = files.get(name)!;
      if (e.shape.length === 1) {
        hf.set(name, { name, shape: e.shape, data: files.read(name) });
        continue;
      }
      const bits = new Uint16Array((e.end - e.start) / 2);
      const fd = fs.openSync(e.file, 'r');
      fs.readSync(fd, new Uint8Array(bits.buffer), 0, bits.byteLength, e.start);
      fs.closeSync(fd);
      hf.set(name, { name, shape: e.shape, data: bits, type: 'BF16' });
    }
  } finally {
    files.close();
  }
  const tok = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8'));
  const vocab = vocabFromTokenizerJson(tok, config.vocabSize, QWEN3_1_7B.eos_token_id, 'qwen2');
  const { metadata, tensors } = ggufFromTensors(config, hf, vocab, 'clawloop-bench-1.7b', 32); // 32: mostly BF16
  writeGguf(file, metadata, tensors);
}

const num = (r: Result | undefined, k: string) => (!r || 'error' in r ? undefined : (r[k] as number | undefined));

function row(label: string, cpu: CpuSummary, mine: Result, key: string, peers: Array<[string, Result, string]>, lowerIsBetter = false): string {
  const fmt = (x: number | undefined, d = 1) => (x === undefined ? '-' : x.toFixed(d));
  const rss = (r: Result) => fmt(num(r, 'peak_rss_mb'), 0);
  const cells = [`${label.padEnd(24)}${fmt(num(mine, key), 2).padStart(9)} ${rss(mine).padStart(7)}MB`];
  for (const [, r, k] of peers) {
    const theirs = num(r, k);
    const m = num(mine, key);
    const ratio = m && theirs ? (lowerIsBetter ? theirs / m : m / theirs) : undefined;
    const note = 'error' in r ? '' : r.tokens !== undefined ? `@${r.tokens}` : '';
    cells.push(`${fmt(theirs, 2).padStart(9)}${note.padEnd(5)} ${rss(r).padStart(7)}MB ${ratio === undefined ? '     -' : (ratio.toFixed(2) + 'x').padStart(6)}`);
  }
  return `${cells.join(' | ')}  ${cpuTag(cpu)}`;
}

export async function benchLarge(o: LargeOptions, cpu: CpuSummary): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  const load0 = os.loadavg()[0];
  const bytes = writeRandomBf16Model(o.dir);
  console.log(`\n1.7B configuration: Qwen3-1.7B shapes, random BF16 weights, ${(bytes / 2 ** 30).toFixed(2)} GiB in ${o.dir} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  const r: Record<string, Result> = {};
  const w = o.workloads;
  if (w.has('prefill')) r.prefill = await ours(o, 'prefill', ['--tokens', '512']);
  if (w.has('decode')) {
    r.bandwidth = readBandwidth();
    r.decode = await ours(o, 'decode', ['--prompt', '32', '--steps', '32']);
    r.bandwidth = bestOf(r.bandwidth, readBandwidth());
  }
  if (w.has('lora')) r.lora = await ours(o, 'lora', ['--seq', String(o.seq)]);
  if (w.has('lora1024')) r.lora1024 = await ours(o, 'lora', ['--seq', '1024', '--iters', '1']);
  if (!o.oursOnly && o.peers.has('pytorch')) {
    for (const dtype of ['bf16', 'fp32']) {
      if (w.has('prefill')) r[`pt_prefill_${dtype}`] = await pytorch(o, 'prefill', dtype, ['--tokens', '512']);
      if (w.has('decode')) r[`pt_decode_${dtype}`] = await pytorch(o, 'decode', dtype, ['--prompt', '32', '--steps', '32']);
      if (w.has('lora')) r[`pt_lora_${dtype}`] = await pytorch(o, 'lora', dtype, ['--seq', String(o.seq)]);
    }
  }
  if (!o.oursOnly && o.peers.has('llamacpp') && (w.has('prefill') || w.has('decode'))) {
    const gguf = path.join(o.dir, 'bench-bf16.gguf');
    try {
      if (!fs.existsSync(gguf)) writeBf16Gguf(o.dir, gguf);
      const script = path.join(ROOT, 'dist', 'scripts', 'bench', 'largeWorkload.js');
      r.llamacpp = await child(process.execPath, [script, '--workload', 'llamacpp', '--gguf', gguf, '--threads', String(o.threads), '--tokens', '512']);
    } catch (err) {
      r.llamacpp = { error: (err as Error).message };
    }
  }
  printLarge(r, cpu, o, bytes);
  // The figures are only as good as the machine was quiet: decoding is bound by memory another process may share.
  console.log(`load average (1 min) ${load0.toFixed(2)} at the start, ${os.loadavg()[0].toFixed(2)} at the end, on ${os.cpus().length} CPUs`);
  if (!o.keep) fs.rmSync(o.dir, { recursive: true, force: true });
  return r;
}

function printLarge(r: Record<string, Result>, cpu: CpuSummary, o: LargeOptions, bytes: number): void {
  const head = (peer: string) => `${peer.padStart(14)} ${'peak RSS'.padStart(9)} ${'ratio'.padStart(6)}`;
  console.log(`${''.padEnd(24)}${'ClawLoop'.padStart(9)} ${'peak RSS'.padStart(9)} | ${head('PyTorch BF16')} | ${head('PyTorch FP32')} | ${head('llama.cpp BF16')}  CPU`);
  const none: Result = { error: 'not measured' };
  const cpp = (k: string): Result => ('error' in (r.llamacpp ?? none) ? none : { ...(r.llamacpp as object), [k]: num(r.llamacpp, `${k}_tok_s`) ?? 0 });
  if (r.prefill) console.log(row('prefill 512 tok/s', cpu, r.prefill, 'tok_s', [['bf16', r.pt_prefill_bf16 ?? none, 'tok_s'], ['fp32', r.pt_prefill_fp32 ?? none, 'tok_s'], ['cpp', cpp('prefill'), 'prefill']]));
  if (r.decode) console.log(row('decode tok/s', cpu, r.decode, 'tok_s', [['bf16', r.pt_decode_bf16 ?? none, 'tok_s'], ['fp32', r.pt_decode_fp32 ?? none, 'tok_s'], ['cpp', cpp('decode'), 'decode']]));
  if (r.lora) console.log(row(`LoRA step s (seq ${o.seq})`, cpu, r.lora, 'step_s', [['bf16', r.pt_lora_bf16 ?? none, 'step_s'], ['fp32', r.pt_lora_fp32 ?? none, 'step_s']], true));
  if (r.lora1024) console.log(row('LoRA step s (seq 1024)', cpu, r.lora1024, 'step_s', []));
  if (r.decode) console.log(streamedLine(r, cpu, bytes));
  const kv = 2 * 28 * 8 * 128 * 4 * 512;
  const p = num(r.prefill, 'peak_rss_mb');
  if (p) console.log(`serving peak RSS (prefill 512): ${(p / (bytes / 2 ** 20)).toFixed(2)}x the weight bytes (bar: <= 1.2x + KV cache ${(kv / 2 ** 20).toFixed(0)} MB)`);
  for (const [k, v] of Object.entries(r)) if ('error' in v) console.log(`${k}: not measured: ${v.error}`);
  console.log('PyTorch figures marked @N were measured on N tokens (the workload would not fit --large-budget on this CPU at full size).');
}

/** The machine's read bandwidth with the kernel threads: a 1 GiB buffer (far beyond any cache) read 5 times. */
function readBandwidth(): Result {
  const addon = loadNativeAddon();
  if (!addon) return { error: 'the native addon is not built (npm run build:native)' };
  const b = addon.nd.readBandwidth(2 ** 30, 5);
  return { gb_s: b.bytesPerSecond / 1e9, threads: b.threads };
}

const bestOf = (a: Result, b: Result): Result => ((num(b, 'gb_s') ?? 0) > (num(a, 'gb_s') ?? 0) ? b : a);

/**
 * Decoding reads every weight matrix once a token (the tied embedding as the output head; the
 * norms are a few KB), so tokens/s × the weights' bytes is the bandwidth it streams.
 */
function streamedLine(r: Record<string, Result>, cpu: CpuSummary, bytes: number): string {
  const read = num(r.bandwidth, 'gb_s');
  const share = (tokS: number | undefined) => {
    if (!tokS) return '-';
    const gbS = (tokS * bytes) / 1e9;
    return `${gbS.toFixed(2)} GB/s${read ? ` (${((100 * gbS) / read).toFixed(0)} % of it)` : ''}`;
  };
  const cppDecode = num(r.llamacpp, 'decode_tok_s');
  const measured = read ? `${read.toFixed(2)} GB/s (${num(r.bandwidth, 'threads')} threads, best of 2 x 5 reads of 1 GiB)` : 'not measured';
  return (
    `decode streams ${(bytes / 1e9).toFixed(2)} GB of weights a token; read bandwidth in this run: ${measured}; ` +
    `ClawLoop streams ${share(num(r.decode, 'tok_s'))}, llama.cpp ${share(cppDecode)}  ${cpuTag(cpu)}`
  );
}
