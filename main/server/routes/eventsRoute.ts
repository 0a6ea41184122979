import { GAP_EVENT } from '../../protocol/events.js';
import { RESPONDED, type Handler } from '../routeTypes.js';

const frame = (id: number, name: string, data: string) => `id: ${id}\nevent: ${name}\ndata: ${data}\n\n`;

/**
 * GET /api/events: everything after `Last-Event-ID` (or `?since=`) from the event log, then live
 * events as they happen. Replay and subscription happen in one synchronous step, so no event can
 * fall between them.
 */
export const streamEvents: Handler<'events'> = (ctx, { req, res, query }) => {
  const header = Number(req.headers['last-event-id']);
  const after = Number.isInteger(header) && header >= 0 ? header : (query.since ?? null);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 2000\n\n');
  let lastSent = after ?? ctx.events.newestId;
  if (after !== null) {
    const { events, gap } = ctx.events.replay(after);
    if (gap) res.write(`event: ${GAP_EVENT}\ndata: ${JSON.stringify(gap)}\n\n`);
    for (const e of events) res.write(frame(e.id, e.name, JSON.stringify({ ...JSON.parse(e.data), at: e.at })));
    if (events.length) lastSent = events.at(-1)!.id;
  }
  const unsubscribe = ctx.events.subscribe((e) => {
    if (e.id <= lastSent) return;
    lastSent = e.id;
    res.write(frame(e.id, e.event, JSON.stringify({ ...e.data, at: e.at })));
  });
  // A comment every keepAliveMs (15 s by default), so proxies and clients keep an idle stream open.
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), ctx.options.keepAliveMs);
  heartbeat.unref();
  const stop = () => {
    clearInterval(heartbeat);
    unsubscribe();
  };
  res.on('close', stop);
  ctx.onShutdown(() => {
    stop();
    res.end();
  });
  return RESPONDED;
};
