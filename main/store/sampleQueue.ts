import { float32Blob, fromFloat32Blob, fromInt32Blob, int32Blob } from './blobCodec.js';
import type { Db } from './database.js';
import type { Prepare } from './statementCache.js';
import type { StoredTurn, TurnStore } from './turnStore.js';

export type SampleKind = 'rl' | 'opd' | 'both';

/** A sample to store for a turn (docs/learning-loop.md §3). */
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
  /**
   * A response other than the turn's: an answer the policy (policy_rollouts) wrote again, or in
   * data from versions with teacher_rollouts the OPD teacher, with log π_old of each token under the
   * policy of `adapterVersion`. Absent or null: the turn's own.
   */
  response?: SampleResponse | null;
}

/** The tokens a sample trains on when they are not its turn's, with the policy's log-probs of them. */
export interface SampleResponse {
  ids: number[];
  logprobs: number[];
  writer: 'teacher' | 'policy';
}

export interface StoredSample extends NewSample {
  id: number;
  turnId: string;
  status: 'queued' | 'training' | 'trained' | 'dropped';
  dropReason: string | null;
  step: number | null;
  createdAt: number;
}

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
  response_ids: Buffer | null;
  response_logprobs: Buffer | null;
  response_writer: SampleResponse['writer'] | null;
  status: StoredSample['status'];
  drop_reason: string | null;
  step: number | null;
  created_at: number;
}

const nullable =
  <A, B>(f: (a: A) => B) =>
  (a: A | null): B | null =>
    a ? f(a) : null;
const f32 = nullable(float32Blob);
const i32 = nullable(int32Blob);
const fromF32 = nullable(fromFloat32Blob);
const fromI32 = nullable(fromInt32Blob);

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
    response:
      r.response_ids && r.response_logprobs && r.response_writer
        ? { ids: fromInt32Blob(r.response_ids), logprobs: fromFloat32Blob(r.response_logprobs), writer: r.response_writer }
        : null,
    status: r.status,
    dropReason: r.drop_reason,
    step: r.step,
    createdAt: r.created_at,
  };
}

/**
 * The `samples` table as the trainer's queue: samples wait ('queued'), are taken for a step
 * ('training'), then end 'trained' or 'dropped'.
 */
export class SampleQueue {
  constructor(
    private readonly db: Db,
    private readonly q: Prepare,
    private readonly turns: TurnStore,
  ) {}

  /** Queues a turn's samples; runs inside the caller's transaction. */
  insert(turnId: string, samples: NewSample[], now: number): void {
    const ins = this.q(
      `INSERT INTO samples (turn_id, kind, reward, reward_source, hint, hint_source, teacher_logprobs, teacher_top_ids, teacher_top_logprobs, top_k, adapter_version, response_ids, response_logprobs, response_writer, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        i32(s.response?.ids ?? null),
        f32(s.response?.logprobs ?? null),
        s.response?.writer ?? null,
        now,
      );
    }
  }

  queuedCount(): number {
    return (this.q("SELECT COUNT(*) AS n FROM samples WHERE status = 'queued'").get() as { n: number }).n;
  }

  /**
   * Queued samples a step may take now: all but those trained with a judge's hint that arrived
   * after `judgeHintCutoff` (ms), which wait so the user can see and reject the hint first.
   */
  readyCount(judgeHintCutoff: number): number {
    return (
      this.q("SELECT COUNT(*) AS n FROM samples WHERE status = 'queued' AND NOT (hint_source IS 'judge' AND created_at > ?)").get(
        judgeHintCutoff,
      ) as {
        n: number;
      }
    ).n;
  }

  /** After a crash, samples that were in a step that never finished go back to the queue. */
  requeueUnfinished(): number {
    return this.q("UPDATE samples SET status = 'queued' WHERE status = 'training'").run().changes;
  }

  /**
   * Takes the oldest `n` queued samples for a step (status 'training'), those waiting for the
   * user's review of their judge's hint left out (see {@link readyCount}). A sample generated more
   * than `maxStaleness` adapter versions before `liveVersion` comes back marked `stale`: the step
   * re-scores it under the current adapter instead of dropping what the user said.
   */
  takeBatch(
    n: number,
    liveVersion: number,
    maxStaleness: number | null,
    judgeHintCutoff = Number.MAX_SAFE_INTEGER,
  ): Array<{ sample: StoredSample; turn: StoredTurn; stale: boolean }> {
    return this.db
      .transaction(() => {
        const rows = this.q(
          "SELECT * FROM samples WHERE status = 'queued' AND NOT (hint_source IS 'judge' AND created_at > ?) ORDER BY id LIMIT ?",
        ).all(judgeHintCutoff, n) as SampleDbRow[];
        if (rows.length < n) return [];
        const mark = this.q("UPDATE samples SET status = 'training' WHERE id = ?");
        for (const r of rows) mark.run(r.id);
        return rows.map((r) => ({
          ...this.withTurn({ ...r, status: 'training' }),
          // Older than max_staleness, or from a version the live policy did not come from (an answer
          // asked of another checkpoint): its π_old is not the policy being trained.
          stale: (maxStaleness !== null && r.adapter_version < liveVersion - maxStaleness) || r.adapter_version > liveVersion,
        }));
      })
      .immediate();
  }

  /** Puts the samples of a step that failed back in the queue. */
  release(ids: number[]): void {
    const stmt = this.q("UPDATE samples SET status = 'queued' WHERE id = ? AND status = 'training'");
    this.db.transaction(() => ids.forEach((id) => stmt.run(id))).immediate();
  }

  /**
   * A sample with the turn it trains on. A teacher rollout's turn carries the rollout's tokens
   * and log-probs in place of the turn's response: the step trains on what the sample holds.
   */
  private withTurn(r: SampleDbRow): { sample: StoredSample; turn: StoredTurn } {
    const sample = toSample(r);
    const turn = this.turns.getTurn(r.turn_id)!;
    if (!sample.response) return { sample, turn };
    return { sample, turn: { ...turn, responseIds: sample.response.ids, responseLogprobs: sample.response.logprobs } };
  }

  ofTurn(turnId: string): StoredSample[] {
    return (this.q('SELECT * FROM samples WHERE turn_id = ? ORDER BY id').all(turnId) as SampleDbRow[]).map(toSample);
  }
}
