import { EVENT_SCHEMAS, type ClawLoopEvent, type NewEvent } from '../protocol/events.js';
import type { EventStore, StoredEvent } from '../store/eventStore.js';

export type EventListener = (event: ClawLoopEvent) => void;

/**
 * The one owner of the live event stream: numbers each event, stores it (so a client that
 * reconnects, or comes back after a restart, gets what it missed) and hands it to every open
 * /api/events stream. Runs on the HTTP thread; the trainer's events arrive here by message.
 */
export class EventBus {
  private readonly listeners = new Set<EventListener>();
  private lastId: number;

  constructor(
    private readonly store: EventStore,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.lastId = store.range().newest;
  }

  /** Numbers, stores and broadcasts an event. Never throws: a failure to store is logged and the event still goes out. */
  publish(e: NewEvent, at = Date.now()): ClawLoopEvent {
    const checked = EVENT_SCHEMAS[e.event].safeParse(e.data);
    if (!checked.success) this.log(`clawloop: event ${e.event} does not match its schema: ${checked.error.issues[0]?.message}`);
    let id: number;
    try {
      id = this.store.append(e.event, JSON.stringify(e.data), at);
    } catch (err) {
      // The stream must not stop because the disk is full; this event just won't be replayable.
      id = this.lastId + 1;
      this.log(`clawloop: could not store event ${e.event} (#${id}): ${(err as Error).message}`);
    }
    this.lastId = Math.max(this.lastId, id);
    const event = { id, at, event: e.event, data: e.data } as ClawLoopEvent;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.log(`clawloop: an event listener failed: ${(err as Error).message}`);
      }
    }
    return event;
  }

  /** Calls `listener` for every event from now on; returns the function that stops it. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Set when events after `afterId` are no longer all stored (pruned, or the id is from another
   * event log): the client must refetch state rather than trust a replay to be complete.
   */
  gapAfter(afterId: number): { requested: number; oldest: number } | null {
    const { oldest } = this.store.range();
    if (afterId > this.lastId) return { requested: afterId, oldest };
    return oldest > afterId + 1 && afterId < this.lastId ? { requested: afterId, oldest } : null;
  }

  /** Up to `limit` stored events after `afterId`, oldest first: one page of a replay. */
  page(afterId: number, limit: number): StoredEvent[] {
    return this.store.since(afterId, limit);
  }

  get newestId(): number {
    return this.lastId;
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }
}
