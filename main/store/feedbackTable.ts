import type { Db } from './database.js';
import type { Prepare } from './statementCache.js';
import { ConflictError, NotFoundError } from './storeErrors.js';
import type { StoredTurn, TurnStore } from './turnStore.js';

export type Rating = 'up' | 'down';

export interface Feedback {
  rating: Rating | null;
  hint: string | null;
  /** The user rejected the hint judge's hint: the turn trains without it. */
  judgeHintRejected: boolean;
  updatedAt: number;
}

/** The `feedback` table: a turn's 👍/👎 and typed hint (written by the HTTP thread). */
export class FeedbackTable {
  constructor(
    private readonly db: Db,
    private readonly q: Prepare,
    private readonly turns: TurnStore,
  ) {}

  /**
   * Sets (or, with both fields null and no rejected judge's hint, clears) a turn's feedback. The turn goes back to the
   * trainer's queue: samples not yet trained on are rebuilt with the new feedback. Throws
   * NotFoundError for an unknown turn and ConflictError once the turn has been trained on.
   */
  set(
    turnId: string,
    rating: Rating | null,
    hint: string | null,
    now: number,
    judgeHintRejected = false,
  ): { turn: StoredTurn; feedback: Feedback | null } {
    return this.db
      .transaction(() => {
        const turn = this.turns.getTurn(turnId);
        if (!turn) throw new NotFoundError(`no chat completion '${turnId}'`);
        const used = this.q("SELECT step FROM samples WHERE turn_id = ? AND status IN ('training', 'trained') LIMIT 1").get(turnId) as
          { step: number | null } | undefined;
        if (used) {
          throw new ConflictError(
            used.step === null
              ? `turn '${turnId}' is being trained on right now; its feedback can no longer change`
              : `turn '${turnId}' was trained on in step ${used.step}; its feedback can no longer change`,
          );
        }
        const cleaned = hint?.trim() ? hint.trim() : null;
        if (rating === null && cleaned === null && !judgeHintRejected) this.q('DELETE FROM feedback WHERE turn_id = ?').run(turnId);
        else {
          this.q(
            `INSERT INTO feedback (turn_id, rating, hint, judge_hint_rejected, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(turn_id) DO UPDATE
               SET rating = excluded.rating, hint = excluded.hint, judge_hint_rejected = excluded.judge_hint_rejected, updated_at = excluded.updated_at`,
          ).run(turnId, rating, cleaned, judgeHintRejected ? 1 : 0, now);
        }
        this.q("DELETE FROM samples WHERE turn_id = ? AND status = 'queued'").run(turnId);
        this.q("UPDATE turns SET learn_state = 'new', learn_note = NULL, learn_epoch = learn_epoch + 1 WHERE id = ?").run(turnId);
        return { turn, feedback: this.get(turnId) };
      })
      .immediate();
  }

  get(turnId: string): Feedback | null {
    const r = this.q('SELECT rating, hint, judge_hint_rejected, updated_at FROM feedback WHERE turn_id = ?').get(turnId) as
      { rating: Rating | null; hint: string | null; judge_hint_rejected: number; updated_at: number } | undefined;
    return r ? { rating: r.rating, hint: r.hint, judgeHintRejected: r.judge_hint_rejected === 1, updatedAt: r.updated_at } : null;
  }
}
