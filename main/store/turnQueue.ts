import type { Db } from './database.js';
import type { Feedback, FeedbackTable } from './feedbackTable.js';
import type { NewSample, SampleQueue } from './sampleQueue.js';
import type { Prepare } from './statementCache.js';
import type { StoredTurn, TurnStore } from './turnStore.js';

/** A main turn ready to become samples, with the epoch its feedback had when it was read. */
export interface ReadyTurn {
  turn: StoredTurn;
  epoch: number;
  feedback: Feedback | null;
}

/** How long a rating without a hint waits for one (`feedback_wait_s`), at time `now` (ms). */
export interface HintWait {
  now: number;
  waitMs: number;
}
const NO_WAIT: HintWait = { now: 0, waitMs: 0 };

/**
 * The trainer's view of the turns: which main turns are ready to be judged, and marking them
 * processed (`turns.learn_state`: 'new' → 'done' or 'skipped'; feedback puts a turn back to 'new'
 * and moves its `learn_epoch` on).
 */
export class TurnQueue {
  constructor(
    private readonly db: Db,
    private readonly q: Prepare,
    private readonly turns: TurnStore,
    private readonly feedback: FeedbackTable,
    private readonly samples: SampleQueue,
  ) {}

  /**
   * The oldest main turn ready to become samples: it has a next state, or its session ended, or it
   * has feedback. Turns without a session and aborted turns are never ready, nor (with `wait`) a
   * turn rated less than `wait.waitMs` ago without a hint: a hint may still join the rating.
   */
  nextReady(wait: HintWait = NO_WAIT): ReadyTurn | null {
    // A rating still waiting for its hint (rated after `cutoff`, no hint yet) is not ready.
    const cutoff = wait.waitMs > 0 ? wait.now - wait.waitMs : Number.MAX_SAFE_INTEGER;
    const r = this.q(
      `SELECT t.id, t.learn_epoch FROM turns t LEFT JOIN feedback f ON f.turn_id = t.id
          WHERE t.type = 'main' AND t.session_id IS NOT NULL AND t.finish_reason != 'abort' AND t.learn_state = 'new'
            AND (t.next_state_role IS NOT NULL OR t.closed = 1 OR f.turn_id IS NOT NULL)
            AND NOT (f.rating IS NOT NULL AND f.hint IS NULL AND f.updated_at > ?)
          ORDER BY t.created_at, t.rowid LIMIT 1`,
    ).get(cutoff) as { id: string; learn_epoch: number } | undefined;
    if (!r) return null;
    return { turn: this.turns.getTurn(r.id)!, epoch: r.learn_epoch, feedback: this.feedback.get(r.id) };
  }

  /** How many main turns are ready to be judged (see {@link nextReady}) and wait for the trainer. */
  pendingCount(): number {
    const r = this.q(
      `SELECT COUNT(*) AS n FROM turns t LEFT JOIN feedback f ON f.turn_id = t.id
          WHERE t.type = 'main' AND t.session_id IS NOT NULL AND t.finish_reason != 'abort' AND t.learn_state = 'new'
            AND (t.next_state_role IS NOT NULL OR t.closed = 1 OR f.turn_id IS NOT NULL)`,
    ).get() as { n: number };
    return r.n;
  }

  /** A turn whose feedback overrode the PRM but which has since got a next state: judged for the record only. */
  nextNeedingLoggedPrm(): StoredTurn | null {
    const r = this.q(
      `SELECT t.id FROM turns t JOIN feedback f ON f.turn_id = t.id
          WHERE t.type = 'main' AND t.learn_state = 'done' AND f.rating IS NOT NULL AND t.next_state_role IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM judgements j WHERE j.turn_id = t.id AND j.kind = 'prm')
          ORDER BY t.created_at LIMIT 1`,
    ).get() as { id: string } | undefined;
    return r ? this.turns.getTurn(r.id) : null;
  }

  /** Is this the first main turn of its session episode that has a next state (the at-least-one rule)? */
  isFirstWithNextState(turn: StoredTurn): boolean {
    const r = this.q(
      `SELECT id FROM turns WHERE session_id = ? AND episode = ? AND type = 'main' AND next_state_role IS NOT NULL AND finish_reason != 'abort'
          ORDER BY created_at, rowid LIMIT 1`,
    ).get(turn.sessionId, turn.episode) as { id: string } | undefined;
    return r?.id === turn.id;
  }

  /**
   * Stores a turn's samples and marks it processed, unless its feedback changed meanwhile
   * (learn_epoch moved on): then nothing is written and false is returned.
   */
  commit(turnId: string, epoch: number, samples: NewSample[], now: number, note: string | null = null): boolean {
    return this.db
      .transaction(() => {
        const r = this.q('SELECT learn_epoch FROM turns WHERE id = ?').get(turnId) as { learn_epoch: number } | undefined;
        if (!r || r.learn_epoch !== epoch) return false;
        this.samples.insert(turnId, samples, now);
        this.q('UPDATE turns SET learn_state = ?, learn_note = ? WHERE id = ?').run(samples.length ? 'done' : 'skipped', note, turnId);
        return true;
      })
      .immediate();
  }

  /** Gives up on a turn that cannot be judged (e.g. too long for the judge); the reason is kept. */
  skip(turnId: string, epoch: number, reason: string): boolean {
    return (
      this.q("UPDATE turns SET learn_state = 'skipped', learn_note = ? WHERE id = ? AND learn_epoch = ?").run(reason, turnId, epoch)
        .changes > 0
    );
  }

  /** Why a turn was skipped, if it was. */
  note(turnId: string): string | null {
    return (
      (this.q('SELECT learn_note FROM turns WHERE id = ?').get(turnId) as { learn_note: string | null } | undefined)?.learn_note ?? null
    );
  }
}
