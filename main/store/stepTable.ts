import type { StepMetrics } from '../protocol/training.js';
import type { CheckpointRow, CheckpointTable } from './checkpointTable.js';
import type { Db } from './database.js';
import type { Prepare } from './statementCache.js';

export interface StepRow {
  step: number;
  createdAt: number;
  adapterVersion: number | null;
  checkpointId: string | null;
  skipped: boolean;
  skipReason: string | null;
  metrics: StepMetrics;
}

/** What a finished step changes, recorded in one transaction by {@link StepTable.commit}. */
export interface FinishedStep {
  step: number;
  version: number;
  checkpoint: Omit<CheckpointRow, 'pinned'>;
  sampleIds: number[];
  now: number;
}

/** The `steps` table, and the one transaction that records a step everywhere it shows. */
export class StepTable {
  constructor(
    private readonly db: Db,
    private readonly q: Prepare,
    private readonly checkpoints: CheckpointTable,
  ) {}

  /**
   * Records a finished step: its checkpoint, the new adapter version, the samples trained, the live
   * state. A checkpoint with `gatePending` is saved with its version reserved but not made live.
   */
  commit(p: FinishedStep): void {
    this.db
      .transaction(() => {
        const c = p.checkpoint;
        this.checkpoints.insert(c);
        this.q(
          `INSERT INTO steps (step, created_at, adapter_version, checkpoint_id, skipped, metrics, parent_step)
           VALUES (?, ?, ?, ?, 0, ?, (SELECT step FROM checkpoints WHERE id = ?))`,
        ).run(p.step, p.now, p.version, c.id, JSON.stringify(c.metrics), c.parentId);
        this.q("INSERT INTO adapter_versions (version, checkpoint_id, reason, created_at) VALUES (?, ?, 'step', ?)").run(
          p.version,
          c.id,
          p.now,
        );
        const mark = this.q("UPDATE samples SET status = 'trained', step = ? WHERE id = ?");
        for (const id of p.sampleIds) mark.run(p.step, id);
        if (c.gatePending) {
          // Saved, not live: the version is reserved, the competence gate decides whether it is served.
          this.q('UPDATE trainer_state SET last_step = ? WHERE id = 1').run(p.step);
        } else {
          this.q('UPDATE trainer_state SET live_version = ?, live_checkpoint_id = ?, last_step = ? WHERE id = 1').run(
            p.version,
            c.id,
            p.step,
          );
        }
      })
      .immediate();
  }

  /** Records a step that was skipped (non-finite loss or gradients): its samples are dropped, the adapter stays. */
  recordSkipped(step: number, reason: string, metrics: Partial<StepMetrics>, sampleIds: number[], now: number): void {
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

  /** Steps after `sinceStep`, in order. */
  since(sinceStep: number): StepRow[] {
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
}
