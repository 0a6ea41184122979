/**
 * `npm run bench:serve [-- --model DIR] [--clients N] [--requests R] [--max-tokens T] [--json FILE]`
 *
 * Starts a real ClawLoop server (worker engine, SQLite recording) on a free port, runs N streaming
 * clients that each send R chat requests back to back, and meanwhile polls /healthz. Prints time to
 * first token (p50/p95, queueing included), aggregate generated tokens/s, and /healthz latency
 * (p50/p99) while the model generates. Without --model it uses a random 3.67 M-parameter
 * Qwen3-shaped model (the bench:engine configuration).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { initBackend } from '../../main/engine/backend.js';
import { CausalLM } from '../../main/engine/causalLM.js';
import { parseModelConfig } from '../../main/engine/config.js';
import { writeSafetensors } from '../../main/engine/safetensors.js';
import { ClawLoopServer } from '../../main/server/clawloopServer.js';
import { WorkerInferenceEngine } from '../../main/server/workerInferenceEngine.js';
import { openDatabase } from '../../main/store/database.js';
import { LearnStore } from '../../main/store/learnStore.js';
import { BENCH_CONFIG } from './benchConfig.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Writes the random benchmark model (with the test tokenizer and chat template) to a folder. */
async function benchModelDir(dir: string): Promise<string> {
  await initBackend();
  const config = { ...BENCH_CONFIG, max_position_embeddings: 4096, eos_token_id: 298 };
  const lm = CausalLM.random(parseModelConfig(config), 0);
  writeSafetensors(path.join(dir, 'model.safetensors'), lm.exportTensors());
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

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      model: { type: 'string' },
      clients: { type: 'string', default: '4' },
      requests: { type: 'string', default: '3' },
      'max-tokens': { type: 'string', default: '64' },
      json: { type: 'string' },
    },
  });
  const clients = Number(values.clients);
  const perClient = Number(values.requests);
  const maxTokens = Number(values['max-tokens']);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-bench-serve-'));
  const modelDir = values.model ? path.resolve(values.model) : await benchModelDir(fs.mkdtempSync(path.join(tmp, 'model-')));
  const db = openDatabase(path.join(tmp, 'clawloop.db'));
  const engine = await WorkerInferenceEngine.start({ modelDir, maxQueue: clients * 2 });
  const server = await ClawLoopServer.start({ engine, store: new LearnStore(db), dataDir: tmp, options: { port: 0 } });
  console.log(`bench:serve: ${engine.info.name} (${(engine.info.parameters / 1e6).toFixed(2)} M parameters) at ${server.url}`);
  console.log(`  ${engine.info.backendLog.join('; ')}`);
  console.log(`  ${clients} streaming clients x ${perClient} requests, max ${maxTokens} tokens each`);

  const ttft: number[] = [];
  const health: number[] = [];
  let tokens = 0;
  let running = true;
  const pinger = (async () => {
    while (running) {
      const t0 = performance.now();
      await (await fetch(`${server.url.replace(/\/v1$/, '')}/healthz`)).json();
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();

  const client = async (c: number) => {
    for (let r = 0; r < perClient; r++) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-id': `bench-${c}`, 'x-turn-type': 'main' },
        body: JSON.stringify({
          messages: [{ role: 'user', content: `Request ${r} from client ${c}: tell me something.` }],
          max_tokens: maxTokens,
          stream: true,
          logprobs: true, // one frame per token, so the first token is visible even while text is held back
          seed: c * 1000 + r,
          stream_options: { include_usage: true },
        }),
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      let first = true;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        if (first && buf.includes('"logprobs":{')) {
          ttft.push(performance.now() - t0);
          first = false;
        }
      }
      const usage = /"completion_tokens":(\d+)/.exec(buf);
      tokens += usage ? Number(usage[1]) : 0;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  const wall = (performance.now() - t0) / 1000;
  running = false;
  await pinger;
  await server.close();
  db.close();
  fs.rmSync(tmp, { recursive: true, force: true });

  const report = {
    requests: clients * perClient,
    completion_tokens: tokens,
    wall_s: wall,
    tokens_per_s: tokens / wall,
    ttft_ms: { p50: pct(ttft, 50), p95: pct(ttft, 95) },
    healthz_ms: { p50: pct(health, 50), p99: pct(health, 99), samples: health.length },
  };
  console.log(`  ${report.requests} requests, ${tokens} tokens in ${wall.toFixed(2)} s: ${report.tokens_per_s.toFixed(1)} tokens/s`);
  console.log(
    `  time to first token: p50 ${report.ttft_ms.p50.toFixed(1)} ms, p95 ${report.ttft_ms.p95.toFixed(1)} ms (queueing included)`,
  );
  console.log(
    `  /healthz while generating: p50 ${report.healthz_ms.p50.toFixed(2)} ms, p99 ${report.healthz_ms.p99.toFixed(2)} ms (${health.length} samples)`,
  );
  if (values.json) {
    fs.writeFileSync(values.json, JSON.stringify(report, null, 2) + '\n');
    console.log(`wrote ${values.json}`);
  }
}

await main();
