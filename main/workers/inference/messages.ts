/**
 * Messages between the HTTP thread and the inference worker (main/workers/inference/worker.ts).
 * Every request carries an `id`; the worker answers `prepare` with `prepared` or `failed` at once
 * (it is not queued), and `generate` with `started`, any number of `delta`s, then exactly one of
 * `done` or `failed`.
 */
import type {
  BackendName,
  ChatDelta,
  ChatGenerationRequest,
  ChatGenerationResult,
  LoraConfig,
  PreparedPrompt,
} from '../../engine/index.js';

export interface InferenceWorkerData {
  modelDir: string;
  backend?: BackendName;
  /**
   * Bytes of keys and values the prefix cache may keep across requests (prompts that start alike
   * compute only their new tokens); 0 turns it off. Default: `CLAWLOOP_PREFIX_CACHE_MB`, else room
   * for four full contexts, at most an eighth of the machine's memory (see prefixCacheBudget.ts).
   */
  prefixCacheBytes?: number;
}

/** What the server needs to know about the loaded model. */
export interface ModelInfo {
  /** The model folder's name. */
  name: string;
  dir: string;
  architecture: string;
  contextLength: number;
  parameters: number;
  backend: string;
  /** The backend line the engine logged (includes whether native kernels are on). */
  backendLog: string[];
  /** The most characters one token stands for: a prompt longer than contextLength × this cannot fit. */
  maxTokenChars: number;
  /** The prefix cache's budget, and what one token takes of it (for a start-up line). Absent from older workers. */
  prefixCache?: { maxBytes: number; bytesPerToken: number };
}

/** A LoRA adapter version to serve: PEFT-layout tensors, or null for the base model. */
export interface AdapterPayload {
  version: number;
  lora: LoraConfig | null;
  tensors: Map<string, Float32Array> | null;
  /** Instead of tensors: a checkpoint folder the worker loads the adapter from (e.g. to answer with an older version). */
  dir?: string;
}

export type ToInferenceWorker =
  /** Render and tokenize a request's prompt and check that it fits, before it is queued. */
  | { type: 'prepare'; id: number; request: ChatGenerationRequest }
  | { type: 'generate'; id: number; request: ChatGenerationRequest; adapterVersion: number }
  /** Make a version available; requests name the version they were admitted with. */
  | { type: 'setAdapter'; adapter: AdapterPayload }
  /** No request uses this version any more. */
  | { type: 'dropAdapter'; version: number }
  | { type: 'abort'; id: number }
  | { type: 'shutdown' };

export type FromInferenceWorker =
  | { type: 'ready'; info: ModelInfo }
  | { type: 'fatal'; message: string }
  /** The answer to `setAdapter`: the version is ready to serve, or could not be loaded (the old one stays). */
  | { type: 'adapterLoaded'; version: number }
  | { type: 'adapterFailed'; version: number; message: string }
  | { type: 'prepared'; id: number; prompt: PreparedPrompt }
  | { type: 'started'; id: number; promptTokens: number; maxTokens: number }
  | { type: 'delta'; id: number; delta: ChatDelta }
  | { type: 'done'; id: number; result: ChatGenerationResult }
  | { type: 'failed'; id: number; status: number; code: string; message: string; promptTokens?: number };
