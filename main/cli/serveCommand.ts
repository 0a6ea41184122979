import path from 'node:path';
import { parseBackendName } from '../engine/backend.js';
import { ClawLoopServer } from '../server/clawloopServer.js';
import { DEFAULT_SERVER_OPTIONS, type ServerOptions } from '../server/serverOptions.js';
import { WorkerInferenceEngine } from '../server/workerInferenceEngine.js';
import { openDatabase } from '../store/database.js';
import { TurnStore } from '../store/turnStore.js';
import { numberFlag, parse, required } from './args.js';
import { DB_FILE, resolveDataDir } from './dataDir.js';
import type { Io } from './io.js';

const D = DEFAULT_SERVER_OPTIONS;

export const SERVE_USAGE = `Usage: clawloop serve --model DIR [options]

Serves the model through an OpenAI-compatible API (POST /v1/chat/completions, GET /v1/models,
GET /healthz) and records every conversation in the data folder.

  --model DIR               Hugging Face model folder (config.json, *.safetensors, tokenizer.json)
  --host HOST               interface to bind (default ${D.host}; 0.0.0.0 exposes it to your network)
  --port PORT               TCP port (default ${D.port}; 0 picks a free one)
  --api-key KEY             require "Authorization: Bearer KEY" (or env CLAWLOOP_API_KEY; default: none)
  --data-dir DIR            where conversations are stored (default: env CLAWLOOP_HOME, else ~/.clawloop)
  --served-model-name NAME  the model id clients use (default: the model folder's name)
  --backend NAME            wasm (default), cpu, webgpu or tensorflow; or env CLAWLOOP_BACKEND
  --max-queue N             requests that may wait behind the running one; more get 429 (default ${D.maxQueue})
  --max-body-bytes N        largest request body; larger gets 413 (default ${D.maxBodyBytes})
  --session-idle-minutes M  end sessions idle this long (default ${D.sessionIdleMs / 60_000}; 0 = never)
  --cors ORIGIN             send CORS headers for ORIGIN (* or a URL; default: no CORS)

Stop with Ctrl-C (SIGINT) or SIGTERM: requests in flight finish, then the database is closed.
A second signal aborts them.`;

/** The provider entry to paste into ~/.openclaw/openclaw.json. */
export function openClawProviderEntry(baseUrl: string, modelId: string, contextLength: number, apiKey: string | null): string {
  // OpenClaw refuses models with a context window under 16000 tokens. Longer prompts than the model
  // reads get a 400 "maximum context length" error, on which OpenClaw compacts and retries.
  const contextWindow = Math.max(contextLength, 16_000);
  const entry = {
    models: {
      mode: 'merge',
      providers: {
        clawloop: {
          baseUrl,
          apiKey: apiKey ?? 'clawloop-local',
          api: 'openai-completions',
          models: [
            {
              id: modelId,
              name: `ClawLoop ${modelId}`,
              reasoning: false,
              input: ['text'],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow,
              maxTokens: Math.min(8192, contextLength),
            },
          ],
        },
      },
    },
    agents: { defaults: { model: { primary: `clawloop/${modelId}` } } },
  };
  return JSON.stringify(entry, null, 2);
}

export async function serveCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, {
    model: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    'api-key': { type: 'string' },
    'data-dir': { type: 'string' },
    'served-model-name': { type: 'string' },
    backend: { type: 'string' },
    'max-queue': { type: 'string' },
    'max-body-bytes': { type: 'string' },
    'session-idle-minutes': { type: 'string' },
    'keep-alive-ms': { type: 'string' },
    cors: { type: 'string' },
  });
  const modelDir = path.resolve(required(values.model, '--model'));
  const backend = values.backend ? parseBackendName(values.backend) : undefined;
  const idleMinutes = numberFlag(values['session-idle-minutes'], '--session-idle-minutes', { min: 0 });
  const options: Partial<ServerOptions> = {
    host: values.host ?? D.host,
    port: numberFlag(values.port, '--port', { min: 0, max: 65535, integer: true }) ?? D.port,
    apiKey: values['api-key'] ?? process.env.CLAWLOOP_API_KEY ?? null,
    servedModelName: values['served-model-name'] ?? '',
    maxQueue: numberFlag(values['max-queue'], '--max-queue', { min: 0, integer: true }) ?? D.maxQueue,
    maxBodyBytes: numberFlag(values['max-body-bytes'], '--max-body-bytes', { min: 1024, integer: true }) ?? D.maxBodyBytes,
    keepAliveMs: numberFlag(values['keep-alive-ms'], '--keep-alive-ms', { min: 10, integer: true }) ?? D.keepAliveMs,
    sessionIdleMs: idleMinutes === undefined ? D.sessionIdleMs : idleMinutes * 60_000,
    corsOrigin: values.cors ?? null,
  };
  if (options.apiKey === '') options.apiKey = null;

  const dataDir = resolveDataDir(values['data-dir']);
  const db = openDatabase(path.join(dataDir, DB_FILE));
  let engine: WorkerInferenceEngine;
  try {
    io.log(`clawloop: loading ${modelDir}`);
    engine = await WorkerInferenceEngine.start({ modelDir, backend, maxQueue: options.maxQueue, log: io.log });
  } catch (err) {
    db.close();
    throw err;
  }
  engine.info.backendLog.forEach((l) => io.log(l));
  let server: ClawLoopServer;
  try {
    server = await ClawLoopServer.start({ engine, store: new TurnStore(db), options, log: io.log });
  } catch (err) {
    await engine.close({ abort: true });
    db.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${options.port} on ${options.host} is in use; choose another with --port`);
    throw err;
  }
  const info = engine.info;
  io.log(
    `clawloop: ${info.name} (${info.architecture}, ${(info.parameters / 1e6).toFixed(2)} M parameters, context ${info.contextLength} tokens)`,
  );
  io.log(`clawloop: recording conversations in ${path.join(dataDir, DB_FILE)}`);
  if (options.host !== '127.0.0.1' && options.host !== 'localhost' && options.host !== '::1' && !options.apiKey) {
    io.log(`clawloop: warning: listening on ${options.host} without an API key; anyone who can reach this port can use the model`);
  }
  io.log(`clawloop: serving ${server.options.servedModelName} at ${server.url}`);
  io.log(
    `\nPoint OpenClaw at it: merge this into ~/.openclaw/openclaw.json (then delete ~/.openclaw/agents/main/agent/models.json if an older URL is cached there):\n`,
  );
  io.log(openClawProviderEntry(server.url, server.options.servedModelName, info.contextLength, options.apiKey ?? null));
  io.log('');

  await new Promise<void>((resolve) => {
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals === 1) {
        io.log(`clawloop: ${sig}: finishing requests in flight (send again to abort them)`);
        server
          .close()
          .catch((err) => io.log(`clawloop: shutdown error: ${(err as Error).message}`))
          .finally(resolve);
      } else {
        io.log(`clawloop: ${sig}: aborting requests in flight`);
        server.close({ abort: true }).catch(() => {});
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  db.close();
  io.log('clawloop: stopped; database closed');
  return 0;
}
