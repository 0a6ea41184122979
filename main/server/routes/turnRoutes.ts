import type { ServerResponse } from 'node:http';
import { ApiError } from '../apiError.js';
import { RESPONDED, type Handler } from '../routeTypes.js';
import { writable } from '../writable.js';
import { exportSessions } from '../../store/exportSessions.js';
import { turnView } from './turnView.js';

export const listTurns: Handler<'turns.list'> = (ctx, { query }) => {
  const ids = ctx.app.turnIds({
    sessionId: query.session_id,
    hasFeedback: query.has_feedback,
    trained: query.trained,
    minReward: query.min_reward,
    maxReward: query.max_reward,
    before: query.before,
    limit: query.limit,
  });
  const page = ids.slice(0, query.limit);
  return {
    object: 'list',
    data: page.map((id) => turnView(ctx.store, ctx.app, ctx.store.turns.getTurn(id)!)),
    has_more: ids.length > query.limit,
  };
};

export const getTurn: Handler<'turns.get'> = (ctx, { params }) => {
  const t = ctx.store.turns.getTurn(params.id);
  if (!t) throw new ApiError(404, `no turn '${params.id}'`, 'invalid_request_error', 'not_found', 'id');
  return turnView(ctx.store, ctx.app, t);
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

/** Lines written between yields to the event loop, so other requests are answered during a long export. */
const EXPORT_LINES_PER_TICK = 32;

/**
 * Every session as JSON Lines, written as it is read (a large history never sits in memory whole):
 * it waits whenever the client has not read what was sent (backpressure), yields to the event loop
 * every few lines, and stops when the client goes away.
 */
export const exportSessionsJsonl: Handler<'export.sessions'> = (ctx, { res }) => {
  res.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'content-disposition': 'attachment; filename="clawloop-sessions.jsonl"',
    'cache-control': 'no-store',
  });
  writeLines(res, exportSessions(ctx.store.turns)).catch((err: Error) => {
    ctx.log(`clawloop: the sessions export failed: ${err.message}`);
    res.destroy(err);
  });
  return RESPONDED;
};

async function writeLines(res: ServerResponse, lines: Iterable<unknown>): Promise<void> {
  let sinceYield = 0;
  for (const line of lines) {
    if (res.destroyed) return;
    const flushed = res.write(JSON.stringify(line) + '\n');
    if (!flushed) await writable(res);
    else if (++sinceYield >= EXPORT_LINES_PER_TICK) {
      sinceYield = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  res.end();
}
