/**
 * Test doubles for the renderer's unit tests: an in-memory fetch that routes requests to handlers
 * (so the real API client, transport and stream parsing run), Response builders, and storage.
 */
import type { FetchLike } from '../api/transport.js';
import type { KeyValueStorage } from '../api/apiKey.js';
import type { CheckpointInfo, Receipt, SessionInfo, StepRecord, TrainingStatus, TurnView } from '../api/contract.js';
import type { ClawLoopEvent, EventData, EventName } from '../api/events.js';

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
  signal: AbortSignal | null;
}

export type Handler = (req: FakeRequest) => Response | Promise<Response>;

export interface FakeFetch extends FetchLike {
  calls: FakeRequest[];
  routes: Map<string, Handler>;
  /** While true every request fails as if the core were not running. */
  down: boolean;
}

/** A fetch whose routes are `"METHOD /path"` → handler; anything else answers 404 in OpenAI's envelope. */
export function fakeFetch(routes: Record<string, Handler> = {}): FakeFetch {
  const map = new Map(Object.entries(routes));
  const f = (async (input: string, init: RequestInit = {}) => {
    if (f.down) throw new TypeError('fetch failed');
    const url = new URL(input, 'http://core.test');
    const method = init.method ?? 'GET';
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const req: FakeRequest = { method, path: url.pathname, query: url.searchParams, headers, body, signal: init.signal ?? null };
    f.calls.push(req);
    const exact = map.get(`${method} ${url.pathname}`);
    const pattern = [...map.entries()].find(([k]) => {
      const [m, p] = k.split(' ');
      return m === method && p.includes(':') && new RegExp(`^${p.replace(/:[^/]+/g, '[^/]+')}$`).test(url.pathname);
    });
    const h = exact ?? pattern?.[1];
    if (!h)
      return json(404, {
        error: { message: `no route ${method} ${url.pathname}`, type: 'invalid_request_error', code: 'not_found', param: null },
      });
    return h(req);
  }) as FakeFetch;
  f.calls = [];
  f.routes = map;
  f.down = false;
  return f;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function apiError(status: number, message: string, param: string | null = null, code: string | null = 'invalid_value'): Response {
  return json(status, { error: { message, type: 'invalid_request_error', code, param } });
}

/**
 * A streamed chat completion: one SSE chunk per token, then [DONE]. With `hold`, the stream waits
 * after the given number of tokens until the request is aborted (to test Stop).
 */
export function chatStream(
  tokens: string[],
  opts: { id?: string; version?: number; hold?: number; signal?: AbortSignal | null } = {},
): Response {
  const id = opts.id ?? 'chatcmpl-test';
  const enc = new TextEncoder();
  const chunk = (delta: Record<string, string>, finish: string | null = null) =>
    enc.encode(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(chunk({ role: 'assistant', content: '' }));
      for (let i = 0; i < tokens.length; i++) {
        if (opts.hold !== undefined && i === opts.hold) {
          await new Promise<void>((resolve) => {
            if (opts.signal?.aborted) resolve();
            else opts.signal?.addEventListener('abort', () => resolve(), { once: true });
          });
          controller.error(new DOMException('aborted', 'AbortError'));
          return;
        }
        controller.enqueue(chunk({ content: tokens[i] }));
        await new Promise((r) => setTimeout(r, 1));
      }
      controller.enqueue(chunk({}, 'stop'));
      controller.enqueue(enc.encode('data: [DONE]\n\n'));
      controller.close();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'x-clawloop-completion-id': id,
      'x-clawloop-adapter-version': String(opts.version ?? 0),
    },
  });
}

export function memoryStorage(initial: Record<string, string> = {}): KeyValueStorage & { data: Map<string, string> } {
  const data = new Map(Object.entries(initial));
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
    removeItem: (k) => void data.delete(k),
  };
}

/** A frame clock for tests: callbacks run on the next macrotask. */
export const nextTick = (fn: () => void) => void setTimeout(fn, 0);

/** Waits until `cond` holds (polling every 5 ms), or fails after `ms`. */
export async function until(cond: () => boolean, ms = 3000, what = 'condition'): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

// Fixtures that satisfy the contract's schemas (the API client checks every answer against them).

export function turnView(id: string, over: Partial<TurnView> = {}): TurnView {
  return {
    id,
    type: 'main',
    session_id: 's1',
    created_at: 1,
    completed_at: 2,
    adapter_version: 0,
    messages: [{ role: 'user', content: 'hi' }],
    response: 'hello',
    reasoning: null,
    tool_calls: null,
    finish_reason: 'stop',
    prompt_tokens: 1,
    completion_tokens: 1,
    next_state: null,
    closed: false,
    learn_note: null,
    feedback: null,
    judgements: [],
    samples: [],
    receipt: receipt('none'),
    ...over,
  };
}

export function receipt(stage: Receipt['stage'], over: Partial<Receipt> = {}): Receipt {
  return {
    stage,
    score: null,
    hint: null,
    hint_source: null,
    step: null,
    checkpoint_id: null,
    version: null,
    reason: null,
    hint_until: null,
    feedback_open: true,
    ...over,
  };
}

const METRICS = {
  loss: 0.5,
  pg_loss: 0.5,
  kl: 0,
  entropy: 1,
  reverse_kl: 0,
  clip_fraction: 0,
  ratio_mean: 1,
  logprob_drift: 0,
  grad_norm: 0.1,
  learning_rate: 1e-3,
  mean_reward: 1,
  samples: { rl: 0, opd: 0, both: 1, total: 1 },
  teacher_advantage: null,
  tokens: 10,
  step_ms: 500,
};

export function checkpoint(id: string, step: number, parent: string | null, over: Partial<CheckpointInfo> = {}): CheckpointInfo {
  return {
    id,
    step,
    adapter_version: step,
    parent_id: parent,
    created_at: step,
    metrics: METRICS,
    samples: METRICS.samples,
    pinned: false,
    name: null,
    note: null,
    live: false,
    competence: null,
    ...over,
  };
}

export function checkpointList(data: CheckpointInfo[], live: string | null, version = 1) {
  return { object: 'list' as const, live_checkpoint: live, adapter_version: version, data, rollbacks: [] };
}

export function metricsRow(step: number, reward: number | null, skipped = false): StepRecord {
  return {
    ...METRICS,
    step,
    created_at: step,
    adapter_version: step,
    checkpoint_id: `step-${step}`,
    skipped,
    skip_reason: null,
    mean_reward: reward,
    loss: step / 10,
  };
}

export function trainingStatus(version: number, over: Partial<TrainingStatus> = {}): TrainingStatus {
  return { method: 'combine', state: 'idle', queued_samples: 0, step: version, adapter_version: version, last_step: null, ...over };
}

export function session(id: string, over: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id,
    title: null,
    created_at: 1,
    last_seen_at: 2,
    ended_at: null,
    end_reason: null,
    turns: 1,
    main_turns: 1,
    preview: null,
    ...over,
  };
}

/** An event as the event stream delivers it. */
export function event<N extends EventName>(id: number, name: N, data: EventData<N>, at = 1000): ClawLoopEvent {
  return { id, event: name, at, data } as ClawLoopEvent;
}

export function stepEvent(step: number, reward: number | null, skipped = false, turnIds: string[] = []): ClawLoopEvent {
  return event(step, 'train.step', {
    step,
    loss: 1,
    reward_mean: reward,
    kl: 0,
    clip_frac: 0,
    lr: 1e-3,
    samples: 1,
    tokens: 10,
    step_seconds: 0.5,
    skipped,
    skip_reason: null,
    turn_ids: turnIds,
  });
}
