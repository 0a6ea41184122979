import type { IncomingMessage, ServerResponse } from 'node:http';
import { GAP_EVENT } from '../../protocol/events.js';
import type { ServerContext } from '../serverContext.js';
import { RESPONDED, type Handler } from '../routeTypes.js';
import { writable } from '../writable.js';

const frame = (id: number, name: string, data: string) => `id: ${id}\nevent: ${name}\ndata: ${data}\n\n`;

/** Stored events read and written per page of a replay: a 100k-event replay never sits in memory whole. */
export const REPLAY_PAGE = 500;

/** What one open stream has sent, shared by its replay and its live listener. */
interface StreamState {
  lastSent: number;
  /** True while stored events are still being replayed: live events wait in the store meanwhile. */
  replaying: boolean;
  ended: boolean;
}

/**
 * GET /api/events: everything after `Last-Event-ID` (or `?since=`) from the event log, page by
 * page as the client reads, then live events as they happen. A live event published during the
 * replay is stored first, so the replay's next page carries it: none is lost or sent twice.
 * Each stream holds a slot (429 past the limits) and a shutdown hook, both given back when it
 * ends. HEAD answers the headers alone.
 */
export const streamEvents: Handler<'events'> = (ctx, { req, res, query }) => {
  const headers = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' };
  if (req.method === 'HEAD') {
    res.writeHead(200, headers).end();
    return RESPONDED;
  }
  const release = ctx.eventStreams.take(req);
  res.writeHead(200, headers);
  res.write('retry: 2000\n\n');
  const asked = askedId(req, query.since);
  // An id above the newest event comes from another event log (the core restarted on a fresh data
  // folder, or the id is garbage such as "1e308"): nothing the client saw is here, so it resumes
  // from the start of this log, after a gap event telling it to refetch state. Resuming from the
  // newest instead would lose whatever happened since the restart.
  const after = asked === null ? null : asked > ctx.events.newestId ? 0 : asked;
  const s: StreamState = { lastSent: after ?? ctx.events.newestId, replaying: after !== null, ended: false };
  const unsubscribe = ctx.events.subscribe((e) => {
    if (s.replaying || e.id <= s.lastSent) return;
    s.lastSent = e.id;
    res.write(frame(e.id, e.event, JSON.stringify({ ...e.data, at: e.at })));
  });
  // A comment every keepAliveMs (15 s by default), so proxies and clients keep an idle stream open.
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), ctx.options.keepAliveMs);
  heartbeat.unref();
  const removeHook = ctx.onShutdown(() => {
    stop();
    res.end();
  });
  function stop(): void {
    if (s.ended) return;
    s.ended = true;
    clearInterval(heartbeat);
    unsubscribe();
    removeHook();
    release();
  }
  res.on('close', stop);
  if (after !== null) {
    const gap = ctx.events.gapAfter(asked!);
    if (gap) res.write(`event: ${GAP_EVENT}\ndata: ${JSON.stringify(gap)}\n\n`);
    replay(ctx, res, s).catch((err: Error) => {
      ctx.log(`clawloop: replaying events failed: ${err.message}`);
      res.destroy();
    });
  }
  return RESPONDED;
};

/**
 * The id the client resumes after: its Last-Event-ID, else `?since=`, else null (live events only).
 * A Last-Event-ID that is no id of this log ("1e308", "-1", 20 digits) came from elsewhere, like
 * one above the newest: it is placed above every id, so the stream replays from the start after a gap.
 */
function askedId(req: IncomingMessage, since: number | undefined): number | null {
  const raw = req.headers['last-event-id'];
  const header = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!header) return since ?? null;
  return /^\d{1,15}$/.test(header) ? Number(header) : Number.MAX_SAFE_INTEGER;
}

/** Writes the stored events after `s.lastSent`, a page at a time, waiting for the client to read each. */
async function replay(ctx: ServerContext, res: ServerResponse, s: StreamState): Promise<void> {
  for (;;) {
    if (s.ended) return;
    const page = ctx.events.page(s.lastSent, REPLAY_PAGE);
    let flushed = true;
    for (const e of page) {
      flushed = res.write(frame(e.id, e.name, JSON.stringify({ ...JSON.parse(e.data), at: e.at })));
      s.lastSent = e.id;
    }
    if (page.length < REPLAY_PAGE) {
      s.replaying = false; // in the same tick as the last read: the live listener takes over from here
      return;
    }
    await (flushed ? new Promise<void>((r) => setImmediate(r)) : writable(res));
  }
}
