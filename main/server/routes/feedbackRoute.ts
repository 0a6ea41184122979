import { ConflictError, NotFoundError } from '../../store/learnStore.js';
import { ApiError } from '../apiError.js';
import { checkHintFits } from '../hintLimit.js';
import { storageError } from '../storageError.js';
import type { Handler } from '../routeTypes.js';

/** POST /v1/feedback: 👍/👎, a hint, and/or rejecting the judge's hint. A field left out keeps its value; null clears it. */
export const postFeedback: Handler<'feedback'> = (ctx, { body }) => {
  const { completion_id: id, rating, hint, reject_judge_hint: reject } = body;
  const before = ctx.store.feedback(id);
  const nextRating = rating === undefined ? (before?.rating ?? null) : rating;
  const nextHint = hint === undefined ? (before?.hint ?? null) : hint;
  const nextReject = reject === undefined ? (before?.judgeHintRejected ?? false) : reject;
  const turn = hint ? ctx.store.turns.getTurn(id) : null;
  if (hint && turn) checkHintFits(hint, turn, ctx.engine.info.contextLength);
  let out;
  try {
    out = ctx.store.setFeedback(id, nextRating, nextHint, Date.now(), nextReject);
  } catch (err) {
    if (err instanceof NotFoundError) throw new ApiError(404, err.message, 'invalid_request_error', 'not_found', 'completion_id');
    if (err instanceof ConflictError) throw new ApiError(409, err.message, 'invalid_request_error', 'already_trained', 'completion_id');
    throw storageError(err, ctx.dataDir);
  }
  ctx.wakeTrainer();
  const fb = out.feedback;
  publishFeedback(ctx, id, fb?.rating ?? null, fb?.hint ?? null, before);
  const t = out.turn;
  return {
    completion_id: id,
    rating: fb?.rating ?? null,
    hint: fb?.hint ?? null,
    reject_judge_hint: fb?.judgeHintRejected ?? false,
    updated_at: fb?.updatedAt ?? Date.now(),
    session_id: t.sessionId,
    turn_type: t.type,
    trainable: t.type === 'main' && t.sessionId !== null && t.finishReason !== 'abort',
  };
};

/** One `feedback.received` event per thing that changed (a rating, a hint, or both cleared). */
function publishFeedback(
  ctx: Parameters<Handler<'feedback'>>[0],
  turnId: string,
  rating: 'up' | 'down' | null,
  hint: string | null,
  before: { rating: 'up' | 'down' | null; hint: string | null } | null,
): void {
  const publish = (kind: 'thumbs_up' | 'thumbs_down' | 'hint' | 'cleared', text: string | null) =>
    ctx.events.publish({ event: 'feedback.received', data: { turn_id: turnId, kind, text } });
  if (rating !== null && rating !== before?.rating) publish(rating === 'up' ? 'thumbs_up' : 'thumbs_down', null);
  if (hint !== null && hint !== before?.hint) publish('hint', hint);
  if (rating === null && hint === null && before) publish('cleared', null);
}
