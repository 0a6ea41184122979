/**
 * A streamed chat completion as the app sends it: OpenAI's request with the session headers the
 * core records conversations by, read token by token. Stopping (the AbortSignal) ends the stream
 * early and reports what had arrived; the core stops generating when the connection closes.
 */
import type { ChatCompletionChunk, WireMessage } from './contract.js';
import { SseParser } from './sseParser.js';
import { ApiRequestError, type Transport } from './transport.js';

export interface ChatStreamRequest {
  messages: WireMessage[];
  /** The conversation id, sent as X-Session-Id. */
  sessionId: string;
  /** main: trained on; side: recorded, not trained (comparisons, asking again). */
  turnType: 'main' | 'side';
  /** 'live' (default), 'base' or a checkpoint id: which adapter answers (Compare). */
  adapter?: string;
  maxTokens?: number;
  /** The sampling temperature, 0–2; absent: the core's default. */
  temperature?: number;
  signal?: AbortSignal;
}

export interface ChatStreamStart {
  /** The recorded turn's id (x-clawloop-completion-id). */
  completionId: string;
  /** The adapter version answering (x-clawloop-adapter-version). */
  version: number | null;
}

export interface ChatDelta {
  content?: string;
  reasoning?: string;
}

export interface ChatStreamResult extends ChatStreamStart {
  content: string;
  reasoning: string;
  /** stop, length, tool_calls, or abort when the user stopped it. */
  finishReason: string;
}

function isAbort(err: unknown): boolean {
  return (err as { name?: string })?.name === 'AbortError';
}

export async function streamChat(
  transport: Transport,
  req: ChatStreamRequest,
  onStart: (s: ChatStreamStart) => void,
  onDelta: (d: ChatDelta) => void,
): Promise<ChatStreamResult> {
  const body: Record<string, unknown> = { messages: req.messages, stream: true };
  if (req.adapter) body.adapter = req.adapter;
  if (req.maxTokens) body.max_tokens = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  const res = await transport.send('POST', '/v1/chat/completions', {
    body,
    headers: { 'x-session-id': req.sessionId, 'x-turn-type': req.turnType, accept: 'text/event-stream' },
    signal: req.signal,
  });
  const v = res.headers.get('x-clawloop-adapter-version');
  const out: ChatStreamResult = {
    completionId: res.headers.get('x-clawloop-completion-id') ?? '',
    version: v === null ? null : Number(v),
    content: '',
    reasoning: '',
    finishReason: 'stop',
  };
  onStart({ completionId: out.completionId, version: out.version });
  try {
    await readChunks(res, (chunk) => {
      if (!out.completionId) out.completionId = chunk.id;
      const choice = chunk.choices[0];
      if (!choice) return;
      const d: ChatDelta = {};
      if (choice.delta.content) d.content = choice.delta.content;
      if (choice.delta.reasoning_content) d.reasoning = choice.delta.reasoning_content;
      if (d.content || d.reasoning) {
        out.content += d.content ?? '';
        out.reasoning += d.reasoning ?? '';
        onDelta(d);
      }
      if (choice.finish_reason) out.finishReason = choice.finish_reason;
    });
  } catch (err) {
    if (!isAbort(err)) throw err;
    out.finishReason = 'abort';
  }
  return out;
}

async function readChunks(res: Response, onChunk: (c: ChatCompletionChunk) => void): Promise<void> {
  if (!res.body) throw new ApiRequestError('The core answered the chat request without a body.', res.status);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    for (const msg of parser.push(value)) {
      if (msg.data === '[DONE]') return;
      if (!msg.data) continue;
      const parsed = JSON.parse(msg.data) as ChatCompletionChunk & { error?: { message: string; type?: string; code?: string } };
      if (parsed.error) {
        throw new ApiRequestError(parsed.error.message, 500, parsed.error.type ?? null, parsed.error.code ?? null);
      }
      onChunk(parsed);
    }
  }
}
