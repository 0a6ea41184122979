/**
 * An incremental parser of the server-sent-events wire format (WHATWG HTML §9.2.6), used for both
 * /api/events and streamed chat completions: feed it text as it arrives, it returns the complete
 * events. Comments (heartbeats) are reported so a caller can tell a quiet stream from a dead one.
 */
export interface SseMessage {
  /** The `event:` field; 'message' when absent. */
  event: string;
  /** The `data:` lines joined with '\n'. */
  data: string;
  /** The `id:` field of this event, or null when it set none. */
  id: string | null;
  /** A `retry:` field (ms), when given. */
  retry: number | null;
}

export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | null = null;
  private retry: number | null = null;
  private sawField = false;
  /** Comment lines seen so far (heartbeats such as `: keep-alive`). */
  comments = 0;

  /** Feeds a chunk of text; returns the events it completed. */
  push(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const out: SseMessage[] = [];
    let start = 0;
    for (;;) {
      const nl = this.nextLineEnd(start);
      if (nl < 0) break;
      const line = this.buffer.slice(start, nl);
      start = nl + (this.buffer[nl] === '\r' && this.buffer[nl + 1] === '\n' ? 2 : 1);
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private nextLineEnd(from: number): number {
    for (let i = from; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      // A lone '\r' at the end of the buffer may be the first half of '\r\n': wait for more.
      if (c === '\n') return i;
      if (c === '\r') return i + 1 < this.buffer.length ? i : -1;
    }
    return -1;
  }

  private line(line: string): SseMessage | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) {
      this.comments++;
      return null;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.sawField = true;
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
    return null;
  }

  private dispatch(): SseMessage | null {
    const hadData = this.data.length > 0;
    const msg: SseMessage = { event: this.event || 'message', data: this.data.join('\n'), id: this.id, retry: this.retry };
    const any = this.sawField;
    this.event = '';
    this.data = [];
    this.id = null;
    this.retry = null;
    this.sawField = false;
    // Per the spec an event with no data is not dispatched; its id and retry still count.
    if (!any) return null;
    return hadData || msg.id !== null || msg.retry !== null ? msg : null;
  }
}
