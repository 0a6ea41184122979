/**
 * `npm run bench:load [-- --model DIR] [--clients 16,32] [--minutes 10] [--idle-minutes 2] [--max-tokens 48] [--json FILE]`
 *
 * Starts a real `clawloop serve` (the bundled model unless --model) with training on, and for each
 * client count runs that many streaming clients, each in its own session, answering and rating
 * what it gets (so samples keep the trainer busy): first with training paused (idle), then for
 * --minutes while training runs. Prints errors (the goal is 0), time to first token p50/p95 idle and
 * while training, tokens/s, steps trained, and the server's RSS at start and end, with the CPU.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run bench:load -- [--model DIR] [--clients 16,32] [--minutes 10] [--idle-minutes 2] [--max-tokens 48] [--json FILE]

Many clients against a real clawloop serve with training on: errors, time to first token, memory.`;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

interface PhaseFigures {
  clients: number;
  phase: 'idle' | 'training';
  seconds: number;
  requests: number;
  errors: number;
  error_samples: string[];
  ttft_ms: { p50: number; p95: number };
  tokens_per_s: number;
  steps: number;
  /** The server's resident memory when the phase ended (MiB). */
  rss_mib: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]) : NaN;
};

function startServer(model: string | undefined, dataDir: string, maxQueue: number): Promise<{ child: ChildProcess; origin: string }> {
  const args = [path.join(ROOT, 'bin', 'clawloop.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--max-queue', String(maxQueue)];
  if (model) args.push('--model', model);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /serving \S+ at (http:\/\/\S+)\/v1/.exec(err);
      if (m) resolve({ child, origin: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`clawloop serve exited with ${code}:\n${err}`)));
  });
}

const QUESTIONS = ['How many minutes are in 3 hours?', 'What is 17 + 26?', 'Convert 2 km to metres.', 'Grade this answer: 7 × 8 = 54.'];
const REPLIES = ['thanks!', 'no, show the working please', 'shorter please', 'great, next one'];

/** One client: streams a question, reads to [DONE], rates some answers, repeats until `until`. */
async function client(
  origin: string,
  id: string,
  maxTokens: number,
  until: number,
  out: { ttft: number[]; tokens: number; requests: number; errors: string[] },
) {
  let history: Array<{ role: string; content: string }> = [];
  for (let i = 0; Date.now() < until; i++) {
    history.push({ role: 'user', content: i % 2 && history.length ? REPLIES[i % REPLIES.length] : QUESTIONS[i % QUESTIONS.length] });
    if (history.length > 6) history = history.slice(-5);
    const t0 = performance.now();
    try {
      const res = await fetch(`${origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-id': id, 'x-turn-type': 'main' },
        body: JSON.stringify({ messages: history, max_tokens: maxTokens, stream: true }),
      });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
      const { text, tokens, first } = await readStream(res, t0);
      out.ttft.push(first);
      out.tokens += tokens;
      out.requests++;
      history.push({ role: 'assistant', content: text });
      const completionId = res.headers.get('x-clawloop-completion-id');
      if (completionId && i % 3 === 0) await rate(origin, completionId, i);
    } catch (err) {
      out.errors.push(`${id}: ${(err as Error).message}`);
    }
  }
}

/** Reads a completion stream as it arrives: the time to the first content, the text and the token count. */
async function readStream(res: Response, t0: number): Promise<{ text: string; tokens: number; first: number }> {
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  let tokens = 0;
  let done = false;
  let first = NaN;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!line.startsWith('data: ')) continue;
      if (line === 'data: [DONE]') done = true;
      else {
        const c = JSON.parse(line.slice(6));
        if (c.error) throw new Error(`stream error: ${c.error.message}`);
        const delta = c.choices?.[0]?.delta?.content ?? '';
        if (delta && Number.isNaN(first)) first = performance.now() - t0;
        text += delta;
        if (c.usage) tokens = c.usage.completion_tokens;
      }
    }
  }
  if (!done) throw new Error('the stream ended without [DONE]');
  return { text, tokens, first: Number.isNaN(first) ? performance.now() - t0 : first };
}

async function rate(origin: string, completionId: string, i: number): Promise<void> {
  const body =
    i % 2
      ? { completion_id: completionId, rating: 'down', hint: 'show the working step by step' }
      : { completion_id: completionId, rating: 'up' };
  const res = await fetch(`${origin}/v1/feedback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200 && res.status !== 409) throw new Error(`feedback HTTP ${res.status}`);
}

async function json<T>(origin: string, p: string, method = 'GET'): Promise<T> {
  return (await (await fetch(`${origin}${p}`, { method })).json()) as T;
}

async function phase(
  origin: string,
  clients: number,
  name: PhaseFigures['phase'],
  seconds: number,
  maxTokens: number,
): Promise<PhaseFigures> {
  await json(origin, name === 'idle' ? '/api/training/pause' : '/api/training/resume', 'POST');
  const stepBefore = (await json<{ step: number }>(origin, '/api/training/status')).step;
  const out = { ttft: [] as number[], tokens: 0, requests: 0, errors: [] as string[] };
  const t0 = performance.now();
  const until = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: clients }, (_, i) => client(origin, `load-${name}-${clients}-${i}`, maxTokens, until, out)));
  const wall = (performance.now() - t0) / 1000;
  const steps = (await json<{ step: number }>(origin, '/api/training/status')).step - stepBefore;
  return {
    clients,
    phase: name,
    seconds: Math.round(wall),
    requests: out.requests,
    errors: out.errors.length,
    error_samples: out.errors.slice(0, 5),
    ttft_ms: { p50: pct(out.ttft, 50), p95: pct(out.ttft, 95) },
    tokens_per_s: Math.round(out.tokens / wall),
    steps,
    rss_mib: Math.round((await json<{ memory: { rss_bytes: number } }>(origin, '/api/info')).memory.rss_bytes / 2 ** 20),
  };
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: {
      model: { type: 'string' },
      clients: { type: 'string', default: '16,32' },
      minutes: { type: 'string', default: '10' },
      'idle-minutes': { type: 'string', default: '2' },
      'max-tokens': { type: 'string', default: '48' },
      json: { type: 'string' },
    },
  });
  const counts = values.clients!.split(',').map(Number);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-load-'));
  const { child, origin } = await startServer(values.model, dataDir, Math.max(...counts) * 2);
  const rss = async () => (await json<{ memory: { rss_bytes: number } }>(origin, '/api/info')).memory.rss_bytes;
  const cpu = `${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} logical cores)`;
  console.log(`bench:load on ${cpu}, ${origin}`);
  const rssStart = await rss();
  const results: PhaseFigures[] = [];
  try {
    for (const n of counts) {
      for (const [name, minutes] of [
        ['idle', Number(values['idle-minutes'])],
        ['training', Number(values.minutes)],
      ] as const) {
        const r = await phase(origin, n, name, minutes * 60, Number(values['max-tokens']));
        results.push(r);
        console.log(
          `${String(n).padStart(3)} clients, ${name.padEnd(8)}: ${r.requests} requests in ${r.seconds} s, errors ${r.errors}, TTFT p50 ${r.ttft_ms.p50} ms / p95 ${r.ttft_ms.p95} ms, ${r.tokens_per_s} tok/s, ${r.steps} steps, RSS ${r.rss_mib} MiB${r.errors ? `\n    e.g. ${r.error_samples[0]}` : ''}`,
        );
      }
    }
  } finally {
    const rssEnd = await rss().catch(() => NaN);
    console.log(`server RSS: ${(rssStart / 2 ** 20).toFixed(0)} MiB at start, ${(rssEnd / 2 ** 20).toFixed(0)} MiB at the end`);
    if (values.json) fs.writeFileSync(values.json, JSON.stringify({ cpu, results, rss_start: rssStart, rss_end: rssEnd }, null, 2) + '\n');
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
