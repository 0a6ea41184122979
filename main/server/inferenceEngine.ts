import type { ChatDelta, ChatGenerationRequest, ChatGenerationResult, PreparedPrompt } from '../engine/index.js';
import type { AdapterPayload, ModelInfo } from '../workers/inference/messages.js';

export interface GenerateHandlers {
  /** Aborting cancels a queued request or stops a running one between tokens. */
  signal: AbortSignal;
  /** The request left the queue and its prompt fits: generation begins. */
  onStart?: (info: { promptTokens: number; maxTokens: number; queuedMs: number }) => void;
  onDelta?: (delta: ChatDelta) => void;
}

/**
 * What the HTTP layer needs from a model: generate a chat reply, streamed. Routes depend on this
 * interface, not on tfjs or on worker threads.
 */
export interface InferenceEngine {
  readonly info: ModelInfo;
  /** Requests running or waiting. */
  readonly load: { running: number; queued: number };
  /** The adapter version new requests are admitted with (0 = the base model). */
  readonly adapterVersion: number;
  /**
   * Makes an adapter version live once it is loaded: requests admitted from then on use it; requests
   * already admitted (queued or running) keep the version they were admitted with. Never waits for
   * them. Rejects when the version cannot be loaded; the previous version then keeps serving.
   */
  setAdapter(adapter: AdapterPayload): Promise<void>;
  /**
   * Renders and tokenizes a request's prompt at once, outside the queue, and checks that it fits:
   * rejects with a 400 {@link InferenceError} (`context_length_exceeded`) when it does not, so the
   * server can refuse before it opens a stream or records anything. Pass the result as the
   * request's `prepared` to `generate`.
   */
  prepare(req: ChatGenerationRequest): Promise<PreparedPrompt>;
  /**
   * Runs requests in arrival order (several at once when the engine batches). Refusals ({@link QueueFullError} when the queue
   * is full, shutting down, already aborted) are thrown synchronously, before any promise exists.
   */
  generate(req: ChatGenerationRequest, handlers: GenerateHandlers, reservedVersion?: number): Promise<ChatGenerationResult>;
  /**
   * Holds an adapter version that need not be live (to answer with an older checkpoint), loading it
   * when needed; resolves with its version, to pass to `generate` (which then releases it when the
   * request ends). A caller that does not generate after all releases it with `releaseAdapter`.
   */
  reserveAdapter(adapter: AdapterPayload): Promise<number>;
  releaseAdapter(version: number): void;
  /** Aborts the running request and fails the queued ones (a second Ctrl-C). */
  abortAll(): void;
  /** Stops accepting work; waits for the running request (or aborts everything with `abort`). */
  close(opts?: { abort?: boolean }): Promise<void>;
}

/** The queue is full: answer 429 with `retry-after-ms`. */
export class QueueFullError extends Error {
  override name = 'QueueFullError';
  constructor(
    readonly retryAfterMs: number,
    queued: number,
  ) {
    super(`the server is busy: ${queued} requests are already waiting; retry in ${Math.ceil(retryAfterMs)} ms`);
  }
}

/**
 * Generation failed or was refused; `status` is the HTTP status to answer with. A refusal for
 * `context_length_exceeded` carries the prompt's tokens as the model counted them.
 */
export class InferenceError extends Error {
  override name = 'InferenceError';
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly promptTokens?: number,
  ) {
    super(message);
  }
}
