import type { IncomingMessage } from 'node:http';
import { ApiError } from './apiError.js';

/**
 * Counts the open /api/events streams, per client and in all, so a page or a script that opens
 * streams without end gets a 429 instead of the server's memory. A client is its address, Origin
 * and User-Agent: on loopback every caller shares the address, and the others tell a browser tab
 * from a script.
 */
export class EventStreamSlots {
  private readonly perClient = new Map<string, number>();
  private total = 0;

  constructor(
    /** Streams one client may hold open. */
    private readonly maxPerClient: number,
    /** Streams open at once, all clients together. */
    private readonly maxTotal: number,
  ) {}

  /** Takes a slot for this request's stream (429 when none is free); returns the function that gives it back. */
  take(req: IncomingMessage): () => void {
    const client = `${req.socket.remoteAddress ?? ''}|${req.headers.origin ?? ''}|${req.headers['user-agent'] ?? ''}`;
    const mine = this.perClient.get(client) ?? 0;
    if (mine >= this.maxPerClient || this.total >= this.maxTotal) {
      const which = mine >= this.maxPerClient ? `this client already holds ${mine}` : `${this.total} are open`;
      throw new ApiError(
        429,
        `too many event streams: ${which} (at most ${this.maxPerClient} per client, ${this.maxTotal} in all); close one and retry`,
        'rate_limit_error',
        'too_many_streams',
        null,
        { 'retry-after': '2' },
      );
    }
    this.perClient.set(client, mine + 1);
    this.total++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.total--;
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left) this.perClient.set(client, left);
      else this.perClient.delete(client);
    };
  }

  get open(): number {
    return this.total;
  }
}
