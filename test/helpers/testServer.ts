import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readSafetensors } from '../../main/engine/formats/safetensors.js';
import { writeSafetensors } from '../../main/engine/formats/safetensorsWrite.js';
import { ClawLoopServer } from '../../main/server/clawloopServer.js';
import type { InferenceEngine } from '../../main/server/inferenceEngine.js';
import type { TrainingConfigPatch } from '../../main/protocol/training.js';
import type { ServerOptions } from '../../main/server/serverOptions.js';
import { TrainerClient } from '../../main/workers/trainer/client.js';
import { WorkerInferenceEngine } from '../../main/workers/inference/client.js';
import { openDatabase, type Db } from '../../main/store/database.js';
import { LearnStore } from '../../main/store/learnStore.js';
import type { TurnStore } from '../../main/store/turnStore.js';
import { modelDir, type FixtureModel } from './paths.js';

export interface TestServer {
  server: ClawLoopServer;
  /** OpenAI base URL, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  store: TurnStore;
  db: Db;
  dataDir: string;
  engine: InferenceEngine;
  learn: LearnStore;
  trainer: TrainerClient | null;
  /** Stops everything; deletes the data folder unless `keepData`. */
  close(keepData?: boolean): Promise<void>;
}

/** A real server on 127.0.0.1, a free port, a fresh data dir; the engine is a worker with a fixture model unless given. */
export async function startTestServer(
  opts: {
    model?: FixtureModel;
    modelPath?: string;
    engine?: InferenceEngine;
    options?: Partial<ServerOptions>;
    /** Start the learning loop with this configuration (default: no trainer); a rating is taken at once unless it sets feedback_wait_s. */
    train?: TrainingConfigPatch;
    /** Reuse a data folder (e.g. to restart on it). */
    dataDir?: string;
    /** Receives the server's console lines (one per request among them). */
    log?: (line: string) => void;
  } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-server-'));
  const dir = opts.modelPath ?? modelDir(opts.model ?? 'qwen3-qknorm');
  const db = openDatabase(path.join(dataDir, 'clawloop.db'));
  const learn = new LearnStore(db);
  const store = learn.turns;
  const engine =
    opts.engine ??
    (await WorkerInferenceEngine.start({
      modelDir: dir,
      maxQueue: opts.options?.maxQueue,
      maxBatch: opts.options?.maxBatch,
    }));
  let trainer: TrainerClient | null = null;
  if (opts.train) {
    const log = process.env.CLAWLOOP_TEST_LOG ? (l: string) => console.error(l) : undefined;
    trainer = await TrainerClient.start({
      modelDir: dir,
      dataDir,
      configPatch: { feedback_wait_s: 0, ...opts.train },
      onAdapter: (a) => engine.setAdapter(a),
      log,
    });
    await engine.setAdapter(trainer.initialAdapter);
  }
  const server = await ClawLoopServer.start({
    engine,
    store: learn,
    trainer,
    dataDir,
    options: { port: 0, ...opts.options },
    log: opts.log,
  });
  return {
    server,
    url: server.url,
    origin: server.url.replace(/\/v1$/, ''),
    store,
    db,
    dataDir,
    engine,
    learn,
    trainer,
    async close(keepData = false) {
      await server.close({ graceMs: 5000 });
      if (trainer) await stopTrainer(trainer);
      db.close();
      if (!keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A copy of a fixture model whose config allows `contextLength` positions (RoPE extends to any length). */
export function longContextModel(name: FixtureModel, contextLength: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `clawloop-${name}-`));
  for (const f of fs.readdirSync(modelDir(name))) {
    const src = path.join(modelDir(name), f);
    if (fs.statSync(src).isFile()) fs.copyFileSync(src, path.join(dir, f));
  }
  const cfgFile = path.join(dir, 'config.json');
  const cfg = JSON.parse(fs.readFileSync(cfgFile, 'utf8'));
  cfg.max_position_embeddings = contextLength;
  fs.writeFileSync(cfgFile, JSON.stringify(cfg));
  return dir;
}

/** Reads an SSE response into its `data:` payloads (and counts comment lines). */
export async function readSse(res: Response): Promise<{ events: unknown[]; done: boolean; comments: number; raw: string }> {
  const raw = await res.text();
  const events: unknown[] = [];
  let done = false;
  let comments = 0;
  for (const frame of raw.split('\n\n')) {
    if (!frame.trim()) continue;
    for (const line of frame.split('\n')) {
      if (line.startsWith(':')) comments++;
      else if (line.startsWith('data: ')) {
        const data = line.slice(6);
        if (data === '[DONE]') done = true;
        else events.push(JSON.parse(data));
      } else throw new Error(`unexpected SSE line ${JSON.stringify(line)}`);
    }
  }
  return { events, done, comments, raw };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** Reads a streaming response until it holds `events` SSE frames (or ends); returns what was read. */
export async function readFrames(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  events: number,
): Promise<{ text: string; ended: boolean }> {
  const decoder = new TextDecoder();
  let text = '';
  while (text.split('data: ').length <= events) {
    const { value, done } = await reader.read();
    if (done) return { text, ended: true };
    text += decoder.decode(value, { stream: true });
  }
  return { text, ended: false };
}

/** Polls `f` until it returns a truthy value (or throws after `timeoutMs`). */
export async function waitFor<T>(f: () => T | Promise<T>, what: string, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const t0 = Date.now();
  for (;;) {
    const v = await f();
    if (v) return v as NonNullable<T>;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A non-streaming chat request; returns the parsed body and the adapter version header. */
export async function chat(
  t: TestServer,
  content: string,
  opts: {
    session?: string;
    type?: 'main' | 'side';
    maxTokens?: number;
    seed?: number;
    logprobs?: boolean;
    temperature?: number;
    done?: boolean;
  } = {},
): Promise<{
  id: string;
  version: number;
  body: {
    id: string;
    choices: Array<{
      message: { content: string };
      logprobs: {
        content: Array<{ token: string; logprob: number; bytes: number[]; top_logprobs: Array<{ bytes: number[]; logprob: number }> }>;
      } | null;
    }>;
  };
}> {
  const headers: Record<string, string> = {};
  if (opts.session) headers['x-session-id'] = opts.session;
  if (opts.type) headers['x-turn-type'] = opts.type;
  if (opts.done) headers['x-session-done'] = '1';
  const res = await postJson(
    `${t.url}/chat/completions`,
    {
      messages: [{ role: 'user', content }],
      max_tokens: opts.maxTokens ?? 4,
      seed: opts.seed,
      temperature: opts.temperature,
      ...(opts.logprobs ? { logprobs: true, top_logprobs: 20 } : {}),
    },
    headers,
  );
  if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as Awaited<ReturnType<typeof chat>>['body'];
  return { id: body.id, version: Number(res.headers.get('x-clawloop-adapter-version')), body };
}

export async function api<T = unknown>(t: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${t.origin}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/**
 * A copy of a fixture model whose logits are multiplied by `factor` (its final RMSNorm weight is
 * scaled), so its next-token distributions are sharper than a random model's near-uniform ones.
 */
export function sharpenedModel(name: FixtureModel, factor: number, contextLength?: number): string {
  const dir = contextLength
    ? longContextModel(name, contextLength)
    : longContextModel(name, JSON.parse(fs.readFileSync(path.join(modelDir(name), 'config.json'), 'utf8')).max_position_embeddings);
  const file = path.join(dir, 'model.safetensors');
  const { tensors, metadata } = readSafetensors(file);
  const norm = tensors.get('model.norm.weight')!;
  norm.data = norm.data.map((x) => x * factor);
  writeSafetensors(
    file,
    [...tensors].map(([n, t]) => ({ name: n, ...t })),
    metadata,
  );
  return dir;
}

/**
 * Stops the trainer after its current work item, as serving does on Ctrl-C, but never waits
 * forever: a trainer that has not stopped within a minute is terminated (as a second Ctrl-C does)
 * and says so on stderr, so that a test that failed before it reports its own failure instead of
 * the whole file timing out.
 */
async function stopTrainer(trainer: { stop(): Promise<void>; terminate(): Promise<void> }): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), 60_000)));
  const outcome = await Promise.race([trainer.stop().then(() => 'stopped' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    process.stderr.write('testServer: the trainer did not stop within 60 s of the server closing; terminating it\n');
    await trainer.terminate();
  }
}
