/**
 * The inference worker thread: loads the model once, then runs the chat generations the HTTP
 * thread hands it (at most its batch size at a time): each prompt is prefilled on its own, and
 * the decode steps of all running generations go through the model together (continuous
 * batching). A prefix cache keeps the keys and values of recent prompts, so a prompt that starts
 * like an earlier one (the same agent system prompt; a session's next turn) computes only its new
 * tokens. All model math of serving happens here, never on the HTTP thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  ChatRequestError,
  DecodeBatcher,
  kvBytesPerToken,
  LoraAdapter,
  Model,
  parameterCount,
  prepareChatPrompt,
  PrefixCache,
  prefixCacheBytesFromEnv,
  runChatGeneration,
} from '../../engine/index.js';
import type { FromInferenceWorker, InferenceWorkerData, ToInferenceWorker } from './messages.js';

if (!parentPort) throw new Error('main/workers/inference/worker.js must run as a worker thread');
const port = parentPort;
const send = (m: FromInferenceWorker) => port.postMessage(m);
const data = workerData as InferenceWorkerData;
const aborts = new Map<number, AbortController>();
let model: Model | null = null;
let batcher: DecodeBatcher | null = null;
let prefixCache: PrefixCache | null = null;
const running = new Set<Promise<void>>();
/** Adapter versions that requests may name; null = the base model. A version is kept until the HTTP thread drops it. */
const adapters = new Map<number, LoraAdapter | null>([[0, null]]);

async function handleGenerate(id: number, request: Parameters<typeof runChatGeneration>[1], version: number): Promise<void> {
  const ac = aborts.get(id);
  if (!model || !ac) return;
  if (!adapters.has(version)) {
    aborts.delete(id);
    send({
      type: 'failed',
      id,
      status: 500,
      code: 'adapter_missing',
      message: `adapter version ${version} is not loaded in the inference worker`,
    });
    return;
  }
  if (ac.signal.aborted) {
    aborts.delete(id);
    send({ type: 'failed', id, status: 499, code: 'aborted', message: 'the client went away before generation started' });
    return;
  }
  try {
    const result = await runChatGeneration(model, request, {
      signal: ac.signal,
      adapter: adapters.get(version) ?? null,
      batcher: batcher ?? undefined,
      // Entries are keyed by the adapter object and its version: a new version never reuses them.
      prefixCache: prefixCache ?? undefined,
      adapterVersion: version,
      onStart: (s) => send({ type: 'started', id, ...s }),
      onDelta: (delta) => send({ type: 'delta', id, delta }),
    });
    send({ type: 'done', id, result });
  } catch (err) {
    sendFailure(id, err, 'generation');
  } finally {
    aborts.delete(id);
  }
}

function sendFailure(id: number, err: unknown, what: string): void {
  if (err instanceof ChatRequestError) {
    send({ type: 'failed', id, status: err.status, code: err.code, message: err.message, promptTokens: err.promptTokens });
  } else send({ type: 'failed', id, status: 500, code: 'internal_error', message: `${what} failed: ${(err as Error).message}` });
}

/** Renders and tokenizes a prompt at once (between decode steps), so a refusal comes before the request is queued. */
function handlePrepare(id: number, request: Parameters<typeof prepareChatPrompt>[1]): void {
  if (!model) return sendFailure(id, new Error('the model is not loaded yet'), 'preparing the prompt');
  try {
    send({ type: 'prepared', id, prompt: prepareChatPrompt(model, request) });
  } catch (err) {
    sendFailure(id, err, 'preparing the prompt');
  }
}

port.on('message', (m: ToInferenceWorker) => {
  switch (m.type) {
    case 'prepare':
      handlePrepare(m.id, m.request);
      break;
    case 'generate': {
      aborts.set(m.id, new AbortController());
      // Runs alongside the generations already running; the HTTP thread caps how many.
      const p: Promise<void> = handleGenerate(m.id, m.request, m.adapterVersion).finally(() => running.delete(p));
      running.add(p);
      break;
    }
    case 'setAdapter': {
      const a = m.adapter;
      if (!model) {
        send({ type: 'adapterFailed', version: a.version, message: 'the model is not loaded yet' });
        break;
      }
      try {
        const loaded = a.dir
          ? LoraAdapter.load(a.dir, model.config)
          : a.tensors && a.lora
            ? LoraAdapter.fromTensors(model.config, a.lora, a.tensors)
            : null;
        const old = adapters.get(a.version);
        if (old) {
          prefixCache?.forget(old);
          old.dispose();
        }
        adapters.set(a.version, loaded);
        send({ type: 'adapterLoaded', version: a.version });
      } catch (err) {
        send({ type: 'adapterFailed', version: a.version, message: (err as Error).message });
      }
      break;
    }
    case 'dropAdapter':
      // Runs between tokens; every generation holding this version has finished.
      if (m.version !== 0) {
        const dropped = adapters.get(m.version);
        if (dropped) prefixCache?.forget(dropped);
        dropped?.dispose();
        adapters.delete(m.version);
      }
      break;
    case 'abort':
      aborts.get(m.id)?.abort();
      break;
    case 'shutdown':
      for (const ac of aborts.values()) ac.abort();
      void Promise.allSettled([...running]).then(() => {
        batcher?.dispose();
        prefixCache?.dispose();
        model?.dispose();
        port.close();
      });
      break;
  }
});

try {
  const backendLog: string[] = [];
  model = await Model.load(data.modelDir, { backend: data.backend, log: (l) => backendLog.push(l) });
  batcher = new DecodeBatcher(model.lm);
  prefixCache = new PrefixCache(data.prefixCacheBytes ?? prefixCacheBytesFromEnv(model.config));
  send({
    type: 'ready',
    info: {
      name: model.name,
      dir: model.dir,
      architecture: model.config.architecture,
      contextLength: model.config.maxPositions,
      parameters: parameterCount(model.config),
      backend: model.backend,
      backendLog,
      maxTokenChars: model.tokenizer.maxTokenChars(),
      prefixCache: { maxBytes: prefixCache.maxBytes, bytesPerToken: kvBytesPerToken(model.config) },
    },
  });
} catch (err) {
  send({ type: 'fatal', message: (err as Error).message });
}
