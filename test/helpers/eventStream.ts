/** A test client of GET /api/events: parses frames as they arrive and waits for the events a test expects. */
export interface ReceivedEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

export class EventStreamClient {
  readonly events: ReceivedEvent[] = [];
  comments = 0;
  private readonly ac = new AbortController();
  private buffer = '';
  private waiters: Array<() => void> = [];
  private done: Promise<void>;

  private constructor(res: Response) {
    this.done = this.read(res).catch(() => {});
  }

  static async open(
    origin: string,
    opts: { lastEventId?: number; since?: number; headers?: Record<string, string> } = {},
  ): Promise<EventStreamClient> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.lastEventId !== undefined) headers['last-event-id'] = String(opts.lastEventId);
    const url = `${origin}/api/events${opts.since !== undefined ? `?since=${opts.since}` : ''}`;
    const probe = new AbortController();
    const res = await fetch(url, { headers, signal: probe.signal });
    if (res.status !== 200) throw new Error(`GET /api/events answered ${res.status}: ${await res.text()}`);
    const c = new EventStreamClient(res);
    c.ac.signal.addEventListener('abort', () => probe.abort());
    return c;
  }

  private async read(res: Response): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      this.buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = this.buffer.indexOf('\n\n')) >= 0) {
        this.frame(this.buffer.slice(0, end));
        this.buffer = this.buffer.slice(end + 2);
      }
    }
  }

  private frame(text: string): void {
    const fields: Record<string, string> = {};
    for (const line of text.split('\n')) {
      if (line.startsWith(':')) this.comments++;
      else {
        const i = line.indexOf(': ');
        if (i > 0) fields[line.slice(0, i)] = line.slice(i + 2);
      }
    }
    if (fields.event && fields.data) {
      this.events.push({ id: fields.id === undefined ? -1 : Number(fields.id), event: fields.event, data: JSON.parse(fields.data) });
      for (const w of this.waiters.splice(0)) w();
    }
  }

  /** Waits until an event matching `match` has arrived (after the first `from` events); returns it. */
  async waitFor(match: (e: ReceivedEvent) => boolean, what: string, timeoutMs = 60_000, from = 0): Promise<ReceivedEvent> {
    const t0 = Date.now();
    for (;;) {
      const hit = this.events.slice(from).find(match);
      if (hit) return hit;
      if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}; got: ${this.events.map((e) => e.event).join(', ')}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  names(): string[] {
    return this.events.map((e) => e.event);
  }

  async close(): Promise<void> {
    this.ac.abort();
    await this.done;
  }
}
