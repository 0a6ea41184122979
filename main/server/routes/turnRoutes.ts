import type { ServerResponse } from 'node:http';
import { ApiError } from '../apiError.js';
import { RESPONDED, type Handler } from '../routeTypes.js';
import { writable } from '../writable.js';
import type { ExportQuerySchema } from '../../protocol/sessions.js';
import type { z } from 'zod';
import type { TurnFilter } from '../../store/appQueries.js';
import { exportFilteredSessions, exportSessions } from '../../store/exportSessions.js';
import { hintWaitMs, turnView } from './turnView.js';

type FilterParams = z.output<typeof ExportQuerySchema> & { before?: number };

/** The store's filter for the Data screen's query (GET /api/turns, and the export's). */
function turnFilter(query: FilterParams, limit: number): TurnFilter {
  return {
    sessionId: query.session_id,
    hasFeedback: query.has_feedback,
    trained: query.trained,
    minReward: query.min_reward,
    maxReward: query.max_reward,
    before: query.before,
    text: query.q,
    limit,
  };
}

export const listTurns: Handler<'turns.list'> = (ctx, { query }) => {
  const ids = ctx.app.turnIds(turnFilter(query, query.limit));
  const page = ids.slice(0, query.limit);
  return {
    object: 'list',
    data: page.map((id) => turnView(ctx.store, ctx.app, ctx.store.turns.getTurn(id)!, hintWaitMs(ctx))),
    has_more: ids.length > query.limit,
  };
};

export const getTurn: Handler<'turns.get'> = (ctx, { params }) => {
  const t = ctx.store.turns.getTurn(params.id);
  if (!t) throw new ApiError(404, `no turn '${params.id}'`, 'invalid_request_error', 'not_found', 'id');
  return turnView(ctx.store, ctx.app, t, hintWaitMs(ctx));
};

export const metrics: Handler<'metrics'> = (ctx, { query }) => ({
  object: 'list',
  data: ctx.store.steps(query.since).map((s) => ({
    step: s.step,
    created_at: s.createdAt,
    adapter_version: s.adapterVersion,
    checkpoint_id: s.checkpointId,
    skipped: s.skipped,
    skip_reason: s.skipReason,
    ...s.metrics,
  })),
});

/** Sessions handled (written, or searched by a filter) between yields to the event loop, so other requests are answered during a long export. */
const EXPORT_SESSIONS_PER_TICK = 32;

/**
 * Every session as JSON Lines, written as it is read (a large history never sits in memory whole):
 * it waits whenever the client has not read what was sent (backpressure), yields to the event loop
 * every few sessions, and stops when the client goes away. Filtered like GET /api/turns when a
 * filter is given, one session at a time (searching 8k turns at once held the server for 0.3 s).
 */
export const exportSessionsJsonl: Handler<'export.sessions'> = (ctx, { res, query }) => {
  res.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'content-disposition': 'attachment; filename="clawloop-sessions.jsonl"',
    'cache-control': 'no-store',
  });
  // Filtered (the Data screen's Export): only the turns the list shows. Unfiltered: everything.
  const filtered = Object.values(query).some((v) => v !== undefined);
  const kept = (sessionId: string): ReadonlySet<string> =>
    query.session_id !== undefined && query.session_id !== sessionId
      ? new Set()
      : new Set(ctx.app.turnIds(turnFilter({ ...query, session_id: sessionId }, Number.MAX_SAFE_INTEGER - 1)));
  const lines = filtered ? exportFilteredSessions(ctx.store.turns, kept) : exportSessions(ctx.store.turns);
  writeLines(res, lines).catch((err: Error) => {
    ctx.log(`clawloop: the sessions export failed: ${err.message}`);
    res.destroy(err);
  });
  return RESPONDED;
};

/** Writes each line; a null is a session searched with nothing to write (it still counts toward a yield). */
async function writeLines(res: ServerResponse, lines: Iterable<unknown>): Promise<void> {
  let sinceYield = 0;
  for (const line of lines) {
    if (res.destroyed) return;
    const flushed = line === null || res.write(JSON.stringify(line) + '\n');
    if (!flushed) await writable(res);
    else if (++sinceYield >= EXPORT_SESSIONS_PER_TICK) {
      sinceYield = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  res.end();
}
