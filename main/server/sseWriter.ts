import type { ServerResponse } from 'node:http';

/**
 * Server-sent events for OpenAI-style streaming: `data: <json>\n\n` frames, `data: [DONE]`, and a
 * `: keep-alive` comment whenever nothing was written for `keepAliveMs` (queueing, long prefill),
 * so clients and proxies with idle timeouts keep the connection.
 */
export class SseWriter {
  private lastWrite = Date.now();
  private readonly timer: NodeJS.Timeout;
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    headers: Record<string, string>,
    keepAliveMs: number,
  ) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // No explicit Connection header: Node keeps the connection alive unless the client asked
      // for `Connection: close`, in which case it closes right after [DONE].
      'x-accel-buffering': 'no',
      ...headers,
    });
    res.flushHeaders();
    this.timer = setInterval(
      () => {
        if (Date.now() - this.lastWrite >= keepAliveMs) this.raw(': keep-alive\n\n');
      },
      Math.max(10, Math.floor(keepAliveMs / 2)),
    );
    this.timer.unref();
  }

  send(event: unknown): void {
    this.raw(`data: ${JSON.stringify(event)}\n\n`);
  }

  /** Ends the stream with `data: [DONE]`. */
  done(): void {
    this.raw('data: [DONE]\n\n');
    this.end();
  }

  /** Sends one error event (OpenAI's envelope) and closes; the SDK then throws with its message. */
  fail(body: unknown): void {
    this.send(body);
    this.end();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    this.res.end();
  }

  private raw(text: string): void {
    if (this.ended || this.res.destroyed) return;
    this.lastWrite = Date.now();
    this.res.write(text);
  }
}
