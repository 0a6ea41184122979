import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ClawLoopServer } from '../../main/server/clawloopServer.js';
import type { InferenceEngine } from '../../main/server/inferenceEngine.js';
import type { ServerOptions } from '../../main/server/serverOptions.js';
import { WorkerInferenceEngine } from '../../main/server/workerInferenceEngine.js';
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
  close(): Promise<void>;
}

/** A real server on 127.0.0.1, a free port, a fresh data dir; the engine is a worker with a fixture model unless given. */
export async function startTestServer(
  opts: { model?: FixtureModel; modelPath?: string; engine?: InferenceEngine; options?: Partial<ServerOptions> } = {},
): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-server-'));
  const db = openDatabase(path.join(dataDir, 'clawloop.db'));
  const learn = new LearnStore(db);
  const store = learn.turns;
  const engine =
    opts.engine ??
    (await WorkerInferenceEngine.start({
      modelDir: opts.modelPath ?? modelDir(opts.model ?? 'qwen3-qknorm'),
      maxQueue: opts.options?.maxQueue,
    }));
  const server = await ClawLoopServer.start({ engine, store: learn, dataDir, options: { port: 0, ...opts.options } });
  return {
    server,
    url: server.url,
    origin: server.url.replace(/\/v1$/, ''),
    store,
    db,
    dataDir,
    engine,
    async close() {
      await server.close({ graceMs: 5000 });
      db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
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
