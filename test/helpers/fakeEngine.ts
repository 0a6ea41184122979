import type { ChatGenerationRequest, ChatGenerationResult, PreparedPrompt } from '../../main/engine/generation/chatGeneration.js';
import type { OutputEvent } from '../../main/engine/text/chatOutputParser.js';
import { InferenceError, QueueFullError, type GenerateHandlers, type InferenceEngine } from '../../main/server/inferenceEngine.js';
import type { AdapterPayload, ModelInfo } from '../../main/workers/inference/messages.js';

/** One scripted reply: events streamed with a delay between them, or a failure. */
export interface ScriptedReply {
  events?: OutputEvent[];
  delayMs?: number;
  /** Wait this long before starting (as if prefilling). */
  startDelayMs?: number;
  /** Start only when this promise resolves: the test decides when prefill ends. */
  startGate?: Promise<void>;
  finishReason?: ChatGenerationResult['finishReason'];
  /** Fail after streaming the events. */
  fail?: { status: number; code: string; message: string; promptTokens?: number };
}

/**
 * An InferenceEngine that replays scripted replies, for protocol details a random tiny model
 * cannot produce on demand (tool calls, reasoning, delays, mid-stream failures). One request runs
 * at a time, with the same queue limit semantics as the real engine.
 */
export class FakeEngine implements InferenceEngine {
  readonly info: ModelInfo = {
    name: 'fake-model',
    dir: '/fake',
    architecture: 'qwen3',
    contextLength: 4096,
    parameters: 1,
    backend: 'none',
    backendLog: [],
    maxTokenChars: 16,
  };
  readonly requests: ChatGenerationRequest[] = [];
  /** Replies that have started generating (past their start delay or gate). */
  started = 0;
  private running = 0;
  private waiting: Array<() => void> = [];

  constructor(
    private readonly script: ScriptedReply[],
    private readonly maxQueue = 16,
  ) {}

  get load() {
    return { running: this.running, queued: this.waiting.length };
  }

  adapterVersion = 0;

  setAdapter(a: AdapterPayload): Promise<void> {
    this.adapterVersion = a.version;
    return Promise.resolve();
  }

  reserveAdapter(a: AdapterPayload): Promise<number> {
    return Promise.resolve(a.version);
  }

  releaseAdapter(): void {}

  /** Three tokens a prompt, as the scripted replies report. */
  prepare(req: ChatGenerationRequest): Promise<PreparedPrompt> {
    return Promise.resolve({ text: JSON.stringify(req.messages), ids: [1, 2, 3], maxTokens: 100 });
  }

  generate(req: ChatGenerationRequest, h: GenerateHandlers): Promise<ChatGenerationResult> {
    if (this.running && this.waiting.length >= this.maxQueue) throw new QueueFullError(250, this.waiting.length);
    this.requests.push(req);
    const reply = this.script.shift() ?? { events: [{ kind: 'content', text: 'ok' }] };
    const enqueued = performance.now();
    return (async () => {
      if (this.running) await new Promise<void>((r) => this.waiting.push(r));
      this.running++;
      try {
        const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
        if (reply.startDelayMs) await sleep(reply.startDelayMs);
        if (reply.startGate) await reply.startGate;
        this.started++;
        h.onStart?.({ promptTokens: 3, maxTokens: 100, queuedMs: performance.now() - enqueued });
        let content = '';
        let reasoning = '';
        const toolCalls = [];
        let n = 0;
        for (const e of reply.events ?? []) {
          if (h.signal.aborted) break;
          if (reply.delayMs) await sleep(reply.delayMs);
          h.onDelta?.({ events: [e], tokens: [{ id: n, logprob: -0.5, token: `t${n}`, bytes: [116], top: [] }] });
          n++;
          if (e.kind === 'content') content += e.text;
          else if (e.kind === 'reasoning') reasoning += e.text;
          else toolCalls.push(e.call);
        }
        if (reply.fail) throw new InferenceError(reply.fail.message, reply.fail.status, reply.fail.code, reply.fail.promptTokens);
        const finishReason = h.signal.aborted ? 'abort' : (reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'));
        return {
          promptText: JSON.stringify(req.messages),
          promptIds: [1, 2, 3],
          responseIds: Array.from({ length: n }, (_, i) => i),
          logprobs: new Array(n).fill(-0.5),
          rawText: content,
          reasoning,
          content,
          toolCalls,
          finishReason,
          maxTokens: 100,
          cachedPromptTokens: 0,
          prefillMs: 1,
          decodeMs: 1,
        };
      } finally {
        this.running--;
        this.waiting.shift()?.();
      }
    })();
  }

  abortAll(): void {}

  async close(): Promise<void> {}
}
