/**
 * Messages between the HTTP thread and the inference worker (main/workers/inferenceWorker.ts).
 * Every request carries an `id`; the worker answers with `started`, any number of `delta`s, then
 * exactly one of `done` or `failed`.
 */
import type { BackendName } from '../engine/backend.js';
import type { ChatDelta, ChatGenerationRequest, ChatGenerationResult } from '../engine/chatGeneration.js';

export interface InferenceWorkerData {
  modelDir: string;
  backend?: BackendName;
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
}

export type ToInferenceWorker =
  { type: 'generate'; id: string; request: ChatGenerationRequest } | { type: 'abort'; id: string } | { type: 'shutdown' };

export type FromInferenceWorker =
  | { type: 'ready'; info: ModelInfo }
  | { type: 'fatal'; message: string }
  | { type: 'started'; id: string; promptTokens: number; maxTokens: number }
  | { type: 'delta'; id: string; delta: ChatDelta }
  | { type: 'done'; id: string; result: ChatGenerationResult }
  | { type: 'failed'; id: string; status: number; code: string; message: string };
