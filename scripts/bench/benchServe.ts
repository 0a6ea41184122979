/**
 * `npm run bench:serve [-- --model DIR] [--clients N] [--requests R] [--max-tokens T] [--train] [--openclaw] [--json FILE]`
 *
 * Starts a real ClawLoop server (worker engine, SQLite recording) on a free port, runs N streaming
 * clients that each send R chat requests back to back, and polls /healthz meanwhile. Prints the
 * time to the response headers (a stream opens before generation starts, so this is far below the
 * time to first token; their ratio is printed), time to first token (p50/p95, queueing included),
 * decode tokens/s per request, aggregate tokens/s and /healthz latency (p50/p99) while generating.
 *
 * With --train it measures the same load twice, without and with the trainer busy (feedback keeps
 * steps coming), and the time from the feedback that completes a batch to the first response served
 * by the adapter trained on it. Without --model it uses a random 3.67 M-parameter Qwen3-shaped model.
 *
 * With --openclaw it runs an OpenClaw-shaped session instead (openclawBench.ts): ten turns with a
 * 40,000-character system prompt and twelve tools, time to first token per turn without and with
 * the prefix cache, and on llama.cpp without and with its prompt cache.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { initBackend } from '../../main/engine/backends/backend.js';
import { CausalLM } from '../../main/engine/model/causalLM.js';
import { parseModelConfig } from '../../main/engine/model/config.js';
import { writeSafetensors } from '../../main/engine/formats/safetensorsWrite.js';
import type { TrainingStatus } from '../../main/protocol/training.js';
import { ClawLoopServer } from '../../main/server/clawloopServer.js';
import { TrainerClient } from '../../main/workers/trainer/client.js';
import { WorkerInferenceEngine } from '../../main/workers/inference/client.js';
import { openDatabase } from '../../main/store/database.js';
import { LearnStore } from '../../main/store/learnStore.js';
import { BENCH_CONFIG } from './benchConfig.js';
import { scriptArgs } from '../scriptArgs.js';
import { openclawBench } from './openclawBench.js';

const USAGE = `Usage: npm run bench:serve -- [--model DIR] [--clients N] [--requests R] [--max-tokens T] [--train] [--openclaw] [--json FILE]

A real server under N streaming clients: time to first token, tokens/s, /healthz latency; with
--train, the same load while the trainer is busy. With --openclaw, a ten-turn OpenClaw-shaped
session instead: time to first token per turn with and without the prefix cache, and on llama.cpp
(--max-tokens per answer, default 64).`;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Writes the random benchmark model (with the test tokenizer and chat template) to a folder. */
async function benchModelDir(dir: string): Promise<string> {
  await initBackend();
  const config = { ...BENCH_CONFIG, max_position_embeddings: 4096, eos_token_id: 298 };
  const lm = CausalLM.random(parseModelConfig(config), 0);
  writeSafetensors(path.join(dir, 'model.safetensors'), await lm.exportTensors());
  lm.dispose();
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'generation_config.json']) {
    fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'models', 'qwen3-qknorm', f), path.join(dir, f));
  }
  return dir;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

interface LoadFigures {
  requests: number;
  completion_tokens: number;
  wall_s: number;
  tokens_per_s: number;
  headers_ms: { p50: number; p95: number };
  ttft_ms: { p50: number; p95: number };
  decode_tok_s: { p50: number };
  healthz_ms: { p50: number; p99: number; samples: number };
}

interface Served {
  url: string;
  origin: string;
  close: () => Promise<void>;
}

async function serve(modelDir: string, dataDir: string, clients: number, train: boolean, prefixCacheBytes?: number): Promise<Served> {
  const db = openDatabase(path.join(dataDir, 'clawloop.db'));
  const engine = await WorkerInferenceEngine.start({ modelDir, maxQueue: clients * 4, prefixCacheBytes });
  let trainer: TrainerClient | null = null;
  if (train) {
    trainer = await TrainerClient.start({
      modelDir,
      dataDir,
      configPatch: { method: 'rl', batch_size: 4, learning_rate: 1e-4, kl_coef: 0 },
      onAdapter: (a) => engine.setAdapter(a),
    });
    engine.setAdapter(trainer.initialAdapter);
  }
  const server = await ClawLoopServer.start({ engine, store: new LearnStore(db), trainer, dataDir, options: { port: 0 } });
  return {
    url: server.url,
    origin: server.url.replace(/\/v1$/, ''),
    close: async () => {
      await server.close();
      await trainer?.stop();
      db.close();
    },
  };
}

/** N streaming clients x R requests while /healthz is polled. */
async function load(s: Served, clients: number, perClient: number, maxTokens: number, tag: string): Promise<LoadFigures> {
  const headers: number[] = [];
  const ttft: number[] = [];
  const decode: number[] = [];
  const health: number[] = [];
  let tokens = 0;
  let running = true;
  const pinger = (async () => {
    while (running) {
      const t0 = performance.now();
      await (await fetch(`${s.origin}/healthz`)).json();
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const client = async (c: number) => {
    for (let r = 0; r < perClient; r++) {
      const t0 = performance.now();
      const res = await fetch(`${s.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [{ role: 'user', content: `${tag} request ${r} from client ${c}: tell me something.` }],
          max_tokens: maxTokens,
          stream: true,
          logprobs: true, // one frame per token, so the first token is visible even while text is held back
          seed: c * 1000 + r,
        }),
      });
      headers.push(performance.now() - t0);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      let first = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        if (!first && buf.includes('"logprobs":{')) {
          first = performance.now();
          ttft.push(first - t0);
        }
      }
      const usage = /"completion_tokens":(\d+)/.exec(buf);
      const n = usage ? Number(usage[1]) : 0;
      tokens += n;
      if (first && n > 1) decode.push((n - 1) / ((performance.now() - first) / 1000));
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  const wall = (performance.now() - t0) / 1000;
  running = false;
  await pinger;
  return {
    requests: clients * perClient,
    completion_tokens: tokens,
    wall_s: wall,
    tokens_per_s: tokens / wall,
    headers_ms: { p50: pct(headers, 50), p95: pct(headers, 95) },
    ttft_ms: { p50: pct(ttft, 50), p95: pct(ttft, 95) },
    decode_tok_s: { p50: pct(decode, 50) },
    healthz_ms: { p50: pct(health, 50), p99: pct(health, 99), samples: health.length },
  };
}

function print(label: string, f: LoadFigures): void {
  console.log(
    `  ${label}: ${f.requests} requests, ${f.completion_tokens} tokens in ${f.wall_s.toFixed(2)} s: ${f.tokens_per_s.toFixed(1)} tokens/s aggregate`,
  );
  console.log(
    `    response headers p50 ${f.headers_ms.p50.toFixed(1)} ms, p95 ${f.headers_ms.p95.toFixed(1)} ms: ` +
      `${(f.ttft_ms.p50 / f.headers_ms.p50).toFixed(1)}x sooner than the first token (p50)`,
  );
  console.log(
    `    time to first token p50 ${f.ttft_ms.p50.toFixed(1)} ms, p95 ${f.ttft_ms.p95.toFixed(1)} ms (queueing included); decode ${f.decode_tok_s.p50.toFixed(1)} tokens/s per request (p50)`,
  );
  console.log(
    `    /healthz while generating: p50 ${f.healthz_ms.p50.toFixed(2)} ms, p99 ${f.healthz_ms.p99.toFixed(2)} ms (${f.healthz_ms.samples} samples)`,
  );
}

/** A rated turn: one chat request and its feedback. */
async function rated(s: Served, i: number): Promise<void> {
  const r = (await (
    await fetch(`${s.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-id': `fb-${i}`, 'x-turn-type': 'main' },
      body: JSON.stringify({ messages: [{ role: 'user', content: `feedback turn ${i}` }], max_tokens: 8, seed: i }),
    })
  ).json()) as { id: string };
  await fetch(`${s.url}/feedback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ completion_id: r.id, rating: i % 2 ? 'up' : 'down' }),
  });
}

async function waitIdle(s: Served): Promise<void> {
  for (let st = await status(s); st.queued_samples > 0 || st.state !== 'idle'; st = await status(s))
    await new Promise((r) => setTimeout(r, 50));
}

async function status(s: Served): Promise<TrainingStatus> {
  return (await (await fetch(`${s.origin}/api/training/status`)).json()) as TrainingStatus;
}

/** Feedback that completes a batch, then requests until one is served by the adapter trained on it. */
async function feedbackToAdapter(s: Served, start: number): Promise<number> {
  const before = (await status(s)).adapter_version;
  for (let i = 0; i < 3; i++) await rated(s, start + i);
  const t0 = performance.now();
  await rated(s, start + 3); // the fourth feedback completes the batch
  for (;;) {
    const res = await fetch(`${s.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'which adapter?' }], max_tokens: 1 }),
    });
    await res.json();
    if (Number(res.headers.get('x-clawloop-adapter-version')) > before) return performance.now() - t0;
  }
}

/** The OpenClaw-shaped session (openclawBench.ts) on servers started like the load's. */
async function openclaw(tmp: string, maxTokens: number, json: string | undefined): Promise<void> {
  const start = (dir: string, bytes: number | undefined) => serve(dir, fs.mkdtempSync(path.join(tmp, 'openclaw-')), 1, false, bytes);
  const figures = await openclawBench(tmp, start, maxTokens);
  fs.rmSync(tmp, { recursive: true, force: true });
  if (json) fs.writeFileSync(json, JSON.stringify(figures, null, 2) + '\n');
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: {
      model: { type: 'string' },
      clients: { type: 'string', default: '4' },
      requests: { type: 'string', default: '3' },
      'max-tokens': { type: 'string', default: '64' },
      train: { type: 'boolean', default: false },
      openclaw: { type: 'boolean', default: false },
      json: { type: 'string' },
    },
  });
  const clients = Number(values.clients);
  const perClient = Number(values.requests);
  const maxTokens = Number(values['max-tokens']);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-bench-serve-'));
  if (values.openclaw) return openclaw(tmp, maxTokens, values.json);
  const modelDir = values.model ? path.resolve(values.model) : await benchModelDir(fs.mkdtempSync(path.join(tmp, 'model-')));
  console.log(
    `bench:serve: ${path.basename(modelDir)}, ${clients} streaming clients x ${perClient} requests, max ${maxTokens} tokens each`,
  );
  const report: Record<string, unknown> = {};

  const plainDir = fs.mkdtempSync(path.join(tmp, 'plain-'));
  const plain = await serve(modelDir, plainDir, clients, false);
  await load(plain, 1, 2, maxTokens, 'warm-up'); // compiled code paths warm before measuring
  report.without_training = await load(plain, clients, perClient, maxTokens, 'plain');
  print('without training', report.without_training as LoadFigures);
  await plain.close();

  if (values.train) {
    const s = await serve(modelDir, fs.mkdtempSync(path.join(tmp, 'train-')), clients, true);
    // Rated turns made beforehand with the trainer paused; resumed as the load starts, the trainer
    // runs step after step while the clients stream.
    await fetch(`${s.origin}/api/training/pause`, { method: 'POST' });
    await load(s, 1, 2, maxTokens, 'warm-up');
    const prepared = 4 * 10;
    for (let i = 0; i < prepared; i++) await rated(s, i);
    await fetch(`${s.origin}/api/training/resume`, { method: 'POST' });
    const busy = await load(s, clients, perClient, maxTokens, 'busy');
    const steps = (await status(s)).step;
    report.with_training = { ...busy, steps_during_load: steps };
    print(`while training (${steps} of ${prepared / 4} steps done by the end of the load)`, busy);
    await waitIdle(s);
    const lat: number[] = [];
    for (let i = 0; i < 3; i++) lat.push(await feedbackToAdapter(s, 100_000 + i * 10));
    report.feedback_to_adapter_ms = { samples: lat, p50: pct(lat, 50) };
    console.log(
      `  feedback -> first response served by the adapter trained on it: p50 ${pct(lat, 50).toFixed(0)} ms (${lat.map((x) => x.toFixed(0)).join(', ')} ms)`,
    );
    await s.close();
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  if (values.json) {
    fs.writeFileSync(values.json, JSON.stringify(report, null, 2) + '\n');
    console.log(`wrote ${values.json}`);
  }
}

await main();
