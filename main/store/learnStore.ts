import type { Competence } from '../protocol/checkpoints.js';
import type { StepMetrics, TrainingConfig } from '../protocol/training.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';
import { TurnStore, type StoredTurn } from './turnStore.js';

export type Rating = 'up' | 'down';
export type SampleKind = 'rl' | 'opd' | 'both';

export interface Feedback {
  rating: Rating | null;
  hint: string | null;
  updatedAt: number;
}

export interface Judgement {
  kind: 'prm' | 'hint';
  judge: string;
  votes: Array<{ raw: string; score: number | null; hint?: string | null }>;
  score: number | null;
  hint: string | null;
  createdAt: number;
}

/** A sample to store for a turn (learning-loop.md §3). */
export interface NewSample {
  kind: SampleKind;
  reward: number | null;
  rewardSource: 'feedback' | 'prm' | 'at_least_one' | null;
  hint: string | null;
  hintSource: 'feedback' | 'judge' | null;
  teacherLogprobs: number[] | null;
  teacherTopIds: number[] | null;
  teacherTopLogprobs: number[] | null;
  topK: number | null;
  adapterVersion: number;
}

export interface StoredSample extends NewSample {
  id: number;
  turnId: string;
  status: 'queued' | 'training' | 'trained' | 'dropped';
  dropReason: string | null;
  step: number | null;
  createdAt: number;
}

export interface CheckpointRow {
  id: string;
  step: number;
  adapterVersion: number;
  parentId: string | null;
  createdAt: number;
  metrics: StepMetrics;
  samples: StepMetrics['samples'];
  lora: { r: number; alpha: number; targets: string[]; dropout: number };
  pinned: boolean;
  /** The competence gate's verdict (null: not checked). */
  competence?: Competence | null;
}

export interface TrainerStateRow {
  config: TrainingConfig | null;
  paused: boolean;
  liveVersion: number;
  liveCheckpointId: string | null;
  lastStep: number;
}

export interface StepRow {
  step: number;
  createdAt: number;
  adapterVersion: number | null;
  checkpointId: string | null;
  skipped: boolean;
  skipReason: string | null;
  metrics: StepMetrics;
}

export class NotFoundError extends Error {
  override name = 'NotFoundError';
}
export class ConflictError extends Error {
  override name = 'ConflictError';
}

const f32 = (a: readonly number[] | null) => (a ? Buffer.from(Float32Array.from(a).buffer) : null);
const i32 = (a: readonly number[] | null) => (a ? Buffer.from(Int32Array.from(a).buffer) : null);
const fromF32 = (b: Buffer | null) => (b ? Array.from(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))) : null);
const fromI32 = (b: Buffer | null) => (b ? Array.from(new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))) : null);

interface SampleDbRow {
  id: number;
  turn_id: string;
  kind: SampleKind;
  reward: number | null;
  reward_source: NewSample['rewardSource'];
  hint: string | null;
  hint_source: NewSample['hintSource'];
  teacher_logprobs: Buffer | null;
  teacher_top_ids: Buffer | null;
  teacher_top_logprobs: Buffer | null;
  top_k: number | null;
  adapter_version: number;
  status: StoredSample['status'];
  drop_reason: string | null;
  step: number | null;
  created_at: number;
}

function toSample(r: SampleDbRow): StoredSample {
  return {
    id: r.id,
    turnId: r.turn_id,
    kind: r.kind,
    reward: r.reward,
    rewardSource: r.reward_source,
    hint: r.hint,
    hintSource: r.hint_source,
    teacherLogprobs: fromF32(r.teacher_logprobs),
    teacherTopIds: fromI32(r.teacher_top_ids),
    teacherTopLogprobs: fromF32(r.teacher_top_logprobs),
    topK: r.top_k,
    adapterVersion: r.adapter_version,
    status: r.status,
    dropReason: r.drop_reason,
    step: r.step,
    createdAt: r.created_at,
  };
}

interface CheckpointDbRow {
  id: string;
  step: number;
  adapter_version: number;
  parent_id: string | null;
  created_at: number;
  metrics: string;
  samples: string;
  lora: string;
  pinned: number;
}

function toCheckpoint(r: CheckpointDbRow): CheckpointRow {
  return {
    id: r.id,
    step: r.step,
    adapterVersion: r.adapter_version,
    parentId: r.parent_id,
    createdAt: r.created_at,
    metrics: JSON.parse(r.metrics),
    samples: JSON.parse(r.samples),
    lora: JSON.parse(r.lora),
    pinned: r.pinned === 1,
  };
}

/**
 * The learning loop's records: feedback, judge results, samples, steps, checkpoints and the
 * trainer's durable state. Used by the HTTP thread (feedback, API reads) and by the trainer worker
 * (its own connection); every method is one short transaction.
 */
export class LearnStore {
  readonly turns: TurnStore;

  private readonly statements = new Map<string, Statement<unknown[]>>();

  constructor(private readonly db: Db) {
    this.turns = new TurnStore(db);
  }

  /** The connection (for the server's other stores: events, app queries). */
  get database(): Db {
    return this.db;
  }

  /** A prepared statement, prepared once per connection. */
  private q(sql: string): Statement<unknown[]> {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare<unknown[]>(sql)));
    return s;
  }

  // ---- feedback (HTTP thread) -------------------------------------------------------------

  /**
   * Sets (or, with both fields null, clears) a turn's feedback. The turn goes back to the
   * trainer's queue: samples not yet trained on are rebuilt with the new feedback. Throws
   * NotFoundError for an unknown turn and ConflictError once the turn has been trained on.
   */
  setFeedback(turnId: string, rating: Rating | null, hint: string | null, now: number): { turn: StoredTurn; feedback: Feedback | null } {
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
        if (rating === null && cleaned === null) this.q('DELETE FROM feedback WHERE turn_id = ?').run(turnId);
        else {
          this.q(
            'INSERT INTO feedback (turn_id, rating, hint, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(turn_id) DO UPDATE SET rating = excluded.rating, hint = excluded.hint, updated_at = excluded.updated_at',
          ).run(turnId, rating, cleaned, now);
        }
        this.q("DELETE FROM samples WHERE turn_id = ? AND status = 'queued'").run(turnId);
        this.q("UPDATE turns SET learn_state = 'new', learn_note = NULL, learn_epoch = learn_epoch + 1 WHERE id = ?").run(turnId);
        return { turn, feedback: this.feedback(turnId) };
      })
      .immediate();
  }

  feedback(turnId: string): Feedback | null {
    const r = this.q('SELECT rating, hint, updated_at FROM feedback WHERE turn_id = ?').get(turnId) as
      { rating: Rating | null; hint: string | null; updated_at: number } | undefined;
    return r ? { rating: r.rating, hint: r.hint, updatedAt: r.updated_at } : null;
  }

  // ---- turn processing (trainer) -----------------------------------------------------------

  /**
   * The oldest main turn ready to become samples: it has a next state, or its session ended, or it
   * has feedback. Turns without a session and aborted turns are never ready.
   */
  nextReadyTurn(): { turn: StoredTurn; epoch: number; feedback: Feedback | null } | null {
    const r = this.q(
      `SELECT t.id, t.learn_epoch FROM turns t LEFT JOIN feedback f ON f.turn_id = t.id
          WHERE t.type = 'main' AND t.session_id IS NOT NULL AND t.finish_reason != 'abort' AND t.learn_state = 'new'
            AND (t.next_state_role IS NOT NULL OR t.closed = 1 OR f.turn_id IS NOT NULL)
          ORDER BY t.created_at, t.rowid LIMIT 1`,
    ).get() as { id: string; learn_epoch: number } | undefined;
    if (!r) return null;
    return { turn: this.turns.getTurn(r.id)!, epoch: r.learn_epoch, feedback: this.feedback(r.id) };
  }

  /** How many main turns are ready to be judged (see {@link nextReadyTurn}) and wait for the trainer. */
  pendingTurnCount(): number {
    const r = this.q(
      `SELECT COUNT(*) AS n FROM turns t LEFT JOIN feedback f ON f.turn_id = t.id
          WHERE t.type = 'main' AND t.session_id IS NOT NULL AND t.finish_reason != 'abort' AND t.learn_state = 'new'
            AND (t.next_state_role IS NOT NULL OR t.closed = 1 OR f.turn_id IS NOT NULL)`,
    ).get() as { n: number };
    return r.n;
  }

  /** A turn whose feedback overrode the PRM but which has since got a next state: judged for the record only. */
  nextTurnNeedingLoggedPrm(): StoredTurn | null {
    const r = this.q(
      `SELECT t.id FROM turns t JOIN feedback f ON f.turn_id = t.id
          WHERE t.type = 'main' AND t.learn_state = 'done' AND f.rating IS NOT NULL AND t.next_state_role IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM judgements j WHERE j.turn_id = t.id AND j.kind = 'prm')
          ORDER BY t.created_at LIMIT 1`,
    ).get() as { id: string } | undefined;
    return r ? this.turns.getTurn(r.id) : null;
  }

  /** Is this the first main turn of its session episode that has a next state (the at-least-one rule)? */
  isFirstTurnWithNextState(turn: StoredTurn): boolean {
    const r = this.q(
      `SELECT id FROM turns WHERE session_id = ? AND episode = ? AND type = 'main' AND next_state_role IS NOT NULL AND finish_reason != 'abort'
          ORDER BY created_at, rowid LIMIT 1`,
    ).get(turn.sessionId, turn.episode) as { id: string } | undefined;
    return r?.id === turn.id;
  }

  judgements(turnId: string): Judgement[] {
    const rows = this.q('SELECT kind, judge, votes, score, hint, created_at FROM judgements WHERE turn_id = ? ORDER BY id').all(
      turnId,
    ) as Array<{
      kind: 'prm' | 'hint';
      judge: string;
      votes: string;
      score: number | null;
      hint: string | null;
      created_at: number;
    }>;
    return rows.map((r) => ({
      kind: r.kind,
      judge: r.judge,
      votes: JSON.parse(r.votes),
      score: r.score,
      hint: r.hint,
      createdAt: r.created_at,
    }));
  }

  insertJudgement(turnId: string, j: Omit<Judgement, 'createdAt'>, now: number): void {
    this.q('INSERT INTO judgements (turn_id, kind, judge, votes, score, hint, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      turnId,
      j.kind,
      j.judge,
      JSON.stringify(j.votes),
      j.score,
      j.hint,
      now,
    );
  }

  /**
   * Stores a turn's samples and marks it processed, unless its feedback changed meanwhile
   * (learn_epoch moved on): then nothing is written and false is returned.
   */
  commitTurn(turnId: string, epoch: number, samples: NewSample[], now: number): boolean {
    return this.db
      .transaction(() => {
        const r = this.q('SELECT learn_epoch FROM turns WHERE id = ?').get(turnId) as { learn_epoch: number } | undefined;
        if (!r || r.learn_epoch !== epoch) return false;
        const ins = this.q(
          `INSERT INTO samples (turn_id, kind, reward, reward_source, hint, hint_source, teacher_logprobs, teacher_top_ids, teacher_top_logprobs, top_k, adapter_version, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        for (const s of samples) {
          ins.run(
            turnId,
            s.kind,
            s.reward,
            s.rewardSource,
            s.hint,
            s.hintSource,
            f32(s.teacherLogprobs),
            i32(s.teacherTopIds),
            f32(s.teacherTopLogprobs),
            s.topK,
            s.adapterVersion,
            now,
          );
        }
        this.q('UPDATE turns SET learn_state = ? WHERE id = ?').run(samples.length ? 'done' : 'skipped', turnId);
        return true;
      })
      .immediate();
  }

  /** Gives up on a turn that cannot be judged (e.g. too long for the judge); the reason is kept. */
  skipTurn(turnId: string, epoch: number, reason: string): boolean {
    return (
      this.q("UPDATE turns SET learn_state = 'skipped', learn_note = ? WHERE id = ? AND learn_epoch = ?").run(reason, turnId, epoch)
        .changes > 0
    );
  }

  learnNote(turnId: string): string | null {
    return (
      (this.q('SELECT learn_note FROM turns WHERE id = ?').get(turnId) as { learn_note: string | null } | undefined)?.learn_note ?? null
    );
  }

  // ---- samples and steps (trainer) ---------------------------------------------------------

  queuedCount(): number {
    return (this.q("SELECT COUNT(*) AS n FROM samples WHERE status = 'queued'").get() as { n: number }).n;
  }

  /** After a crash, samples that were in a step that never finished go back to the queue. */
  requeueUnfinished(): number {
    return this.q("UPDATE samples SET status = 'queued' WHERE status = 'training'").run().changes;
  }

  /**
   * Takes the oldest `n` queued samples for a step (status 'training'), first dropping samples
   * generated more than `maxStaleness` versions before `liveVersion`.
   */
  takeBatch(n: number, liveVersion: number, maxStaleness: number | null): Array<{ sample: StoredSample; turn: StoredTurn }> {
    return this.db
      .transaction(() => {
        if (maxStaleness !== null) {
          this.q("UPDATE samples SET status = 'dropped', drop_reason = ? WHERE status = 'queued' AND adapter_version < ?").run(
            `stale: generated more than ${maxStaleness} adapter versions before ${liveVersion}`,
            liveVersion - maxStaleness,
          );
        }
        const rows = this.q("SELECT * FROM samples WHERE status = 'queued' ORDER BY id LIMIT ?").all(n) as SampleDbRow[];
        if (rows.length < n) return [];
        const mark = this.q("UPDATE samples SET status = 'training' WHERE id = ?");
        for (const r of rows) mark.run(r.id);
        return rows.map((r) => ({ sample: toSample({ ...r, status: 'training' }), turn: this.turns.getTurn(r.turn_id)! }));
      })
      .immediate();
  }

  releaseBatch(ids: number[]): void {
    const stmt = this.q("UPDATE samples SET status = 'queued' WHERE id = ? AND status = 'training'");
    this.db.transaction(() => ids.forEach((id) => stmt.run(id))).immediate();
  }

  /** Records a finished step: its checkpoint, the new adapter version, the samples trained, the live state. */
  commitStep(p: { step: number; version: number; checkpoint: Omit<CheckpointRow, 'pinned'>; sampleIds: number[]; now: number }): void {
    this.db
      .transaction(() => {
        const c = p.checkpoint;
        this.q(
          'INSERT INTO checkpoints (id, step, adapter_version, parent_id, created_at, metrics, samples, lora) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ).run(
          c.id,
          c.step,
          c.adapterVersion,
          c.parentId,
          c.createdAt,
          JSON.stringify(c.metrics),
          JSON.stringify(c.samples),
          JSON.stringify(c.lora),
        );
        this.q('INSERT INTO steps (step, created_at, adapter_version, checkpoint_id, skipped, metrics) VALUES (?, ?, ?, ?, 0, ?)').run(
          p.step,
          p.now,
          p.version,
          c.id,
          JSON.stringify(c.metrics),
        );
        this.q("INSERT INTO adapter_versions (version, checkpoint_id, reason, created_at) VALUES (?, ?, 'step', ?)").run(
          p.version,
          c.id,
          p.now,
        );
        const mark = this.q("UPDATE samples SET status = 'trained', step = ? WHERE id = ?");
        for (const id of p.sampleIds) mark.run(p.step, id);
        this.q('UPDATE trainer_state SET live_version = ?, live_checkpoint_id = ?, last_step = ? WHERE id = 1').run(
          p.version,
          c.id,
          p.step,
        );
      })
      .immediate();
  }

  /** Records a step that was skipped (non-finite loss or gradients): its samples are dropped, the adapter stays. */
  recordSkippedStep(step: number, reason: string, metrics: Partial<StepMetrics>, sampleIds: number[], now: number): void {
    this.db
      .transaction(() => {
        this.q('INSERT INTO steps (step, created_at, skipped, skip_reason, metrics) VALUES (?, ?, 1, ?, ?)').run(
          step,
          now,
          reason,
          JSON.stringify(metrics),
        );
        const drop = this.q("UPDATE samples SET status = 'dropped', drop_reason = ?, step = ? WHERE id = ?");
        for (const id of sampleIds) drop.run(`step ${step} skipped: ${reason}`, step, id);
        this.q('UPDATE trainer_state SET last_step = ? WHERE id = 1').run(step);
      })
      .immediate();
  }

  /** Makes a checkpoint (or the base model, null) live as a new adapter version. */
  recordRollback(checkpointId: string | null, version: number, now: number): void {
    this.db
      .transaction(() => {
        this.q("INSERT INTO adapter_versions (version, checkpoint_id, reason, created_at) VALUES (?, ?, 'rollback', ?)").run(
          version,
          checkpointId,
          now,
        );
        this.q('UPDATE trainer_state SET live_version = ?, live_checkpoint_id = ? WHERE id = 1').run(version, checkpointId);
      })
      .immediate();
  }

  trainerState(): TrainerStateRow {
    const r = this.q('SELECT config, paused, live_version, live_checkpoint_id, last_step FROM trainer_state WHERE id = 1').get() as {
      config: string | null;
      paused: number;
      live_version: number;
      live_checkpoint_id: string | null;
      last_step: number;
    };
    return {
      config: r.config ? JSON.parse(r.config) : null,
      paused: r.paused === 1,
      liveVersion: r.live_version,
      liveCheckpointId: r.live_checkpoint_id,
      lastStep: r.last_step,
    };
  }

  saveConfig(config: TrainingConfig): void {
    this.q('UPDATE trainer_state SET config = ? WHERE id = 1').run(JSON.stringify(config));
  }

  setPaused(paused: boolean): void {
    this.q('UPDATE trainer_state SET paused = ? WHERE id = 1').run(paused ? 1 : 0);
  }

  /** The highest adapter version ever issued (versions only grow). */
  maxVersion(): number {
    return (this.q('SELECT MAX(version) AS v FROM adapter_versions').get() as { v: number }).v;
  }

  // ---- checkpoints and metrics --------------------------------------------------------------

  checkpoints(): CheckpointRow[] {
    return (this.q('SELECT * FROM checkpoints ORDER BY step').all() as CheckpointDbRow[]).map(toCheckpoint);
  }

  checkpoint(id: string): CheckpointRow | null {
    const r = this.q('SELECT * FROM checkpoints WHERE id = ?').get(id) as CheckpointDbRow | undefined;
    return r ? toCheckpoint(r) : null;
  }

  setPinned(id: string, pinned: boolean): boolean {
    return this.q('UPDATE checkpoints SET pinned = ? WHERE id = ?').run(pinned ? 1 : 0, id).changes > 0;
  }

  deleteCheckpointRows(ids: string[]): void {
    const del = this.q('DELETE FROM checkpoints WHERE id = ?');
    this.db.transaction(() => ids.forEach((id) => del.run(id))).immediate();
  }

  steps(sinceStep: number): StepRow[] {
    const rows = this.q('SELECT * FROM steps WHERE step > ? ORDER BY step').all(sinceStep) as Array<{
      step: number;
      created_at: number;
      adapter_version: number | null;
      checkpoint_id: string | null;
      skipped: number;
      skip_reason: string | null;
      metrics: string;
    }>;
    return rows.map((r) => ({
      step: r.step,
      createdAt: r.created_at,
      adapterVersion: r.adapter_version,
      checkpointId: r.checkpoint_id,
      skipped: r.skipped === 1,
      skipReason: r.skip_reason,
      metrics: JSON.parse(r.metrics),
    }));
  }

  samplesOfTurn(turnId: string): StoredSample[] {
    return (this.q('SELECT * FROM samples WHERE turn_id = ? ORDER BY id').all(turnId) as SampleDbRow[]).map(toSample);
  }
}
