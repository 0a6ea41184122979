import type { ChatDelta, ChatGenerationResult, TokenReport } from '../../../engine/index.js';
import type { ServerResponse } from 'node:http';
import { SseWriter } from '../../sseWriter.js';
import { toolCallId } from '../../wireFormat.js';
import { chunkOf, finishOf, usageOf, type AnswerHead } from './chatAnswer.js';
import { toApiError } from '../../toApiError.js';

/**
 * Turns engine deltas into OpenAI chunks. Chunks the engine reports before the stream is open
 * (an engine may call back synchronously) wait until `open`.
 */
export class ChunkEmitter {
  private sse: SseWriter | null = null;
  private readonly early: unknown[] = [];
  readonly callIds: string[] = [];

  constructor(private readonly head: AnswerHead) {}

  private emit(event: unknown): void {
    if (this.sse) this.sse.send(event);
    else this.early.push(event);
  }

  started(): void {
    this.emit(chunkOf(this.head, { role: 'assistant', content: '' }));
  }

  delta(d: ChatDelta): void {
    let tokens: TokenReport[] | undefined = d.tokens.length ? d.tokens : undefined;
    for (const e of d.events) {
      if (e.kind === 'reasoning') this.emit(chunkOf(this.head, { reasoning_content: e.text }, null, tokens));
      else if (e.kind === 'content') this.emit(chunkOf(this.head, { content: e.text }, null, tokens));
      else {
        const index = this.callIds.length;
        const id = toolCallId();
        this.callIds.push(id);
        // id and name first, then the arguments: calls go out one after another, never interleaved.
        const head = { index, id, type: 'function' as const, function: { name: e.call.name, arguments: '' } };
        this.emit(chunkOf(this.head, { tool_calls: [head] }, null, tokens));
        this.emit(chunkOf(this.head, { tool_calls: [{ index, function: { arguments: e.call.arguments } }] }));
      }
      tokens = undefined;
    }
    if (tokens && this.head.logprobs) this.emit(chunkOf(this.head, {}, null, tokens));
  }

  /** Opens the event stream (200) and sends what waited. */
  open(res: ServerResponse, headers: Record<string, string>, keepAliveMs: number): SseWriter {
    this.sse = new SseWriter(res, headers, keepAliveMs);
    for (const event of this.early.splice(0)) this.sse.send(event);
    return this.sse;
  }
}

/**
 * Finishes a stream: the last chunk with the finish reason, usage unless the client turned it
 * off, `[DONE]`. `record` runs first: if the turn cannot be recorded the stream ends with an error
 * event instead of `[DONE]`, so a client never holds an id that was not stored.
 */
export async function finishStream(
  sse: SseWriter,
  head: AnswerHead,
  done: Promise<ChatGenerationResult>,
  record: (r: ChatGenerationResult) => void,
  includeUsage: boolean,
  onError: (message: string) => void,
): Promise<void> {
  try {
    const result = await done;
    record(result);
    if (result.finishReason === 'abort') return sse.end();
    sse.send(chunkOf(head, {}, finishOf(result)));
    if (includeUsage) sse.send({ ...chunkOf(head, {}), choices: [], usage: usageOf(result) });
    sse.done();
  } catch (err) {
    const e = toApiError(err);
    onError(e.code ? `${e.message} (${e.code})` : e.message);
    if (e.status !== 499) sse.fail(e.body());
    else sse.end();
  }
}
