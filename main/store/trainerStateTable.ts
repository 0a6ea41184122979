import type { TrainingConfig } from '../protocol/training.js';
import type { Db } from './database.js';
import type { Prepare } from './statementCache.js';

/** What the trainer keeps across restarts (the single row of `trainer_state`). */
export interface TrainerStateRow {
  config: TrainingConfig | null;
  paused: boolean;
  liveVersion: number;
  liveCheckpointId: string | null;
  lastStep: number;
}

/** The accuracy the competence gate compares a new checkpoint with, on the prompts `key` names. */
export interface CompetenceReference {
  key: string;
  accuracy: number;
  /** Whose accuracy it is: 'base' or a checkpoint id. */
  source: string;
  /**
   * The last reference the whole set confirmed, when this one is a live policy's score on the
   * sample that was not checked on the whole set yet (main/rl/gate/gateState.ts); absent:
   * this one is the base model's, or `checked`. (A reference stored before rises were checked has
   * a key without `:share`, so the next start measures the base model again instead.)
   */
  floor?: { accuracy: number; source: string };
  /** The whole set confirmed it (a checked rise, or the floor a check fell back to). */
  checked?: boolean;
}

/** The trainer's durable state (`trainer_state`) and the adapter versions it issued (`adapter_versions`). */
export class TrainerStateTable {
  constructor(
    private readonly db: Db,
    private readonly q: Prepare,
  ) {}

  get(): TrainerStateRow {
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

  /** Makes a saved checkpoint live under the version reserved for it. Runs inside the caller's transaction. */
  makeLive(checkpointId: string, version: number): void {
    this.q('UPDATE trainer_state SET live_version = ?, live_checkpoint_id = ? WHERE id = 1').run(version, checkpointId);
  }

  competenceReference(): CompetenceReference | null {
    const r = this.q('SELECT competence_reference AS c FROM trainer_state WHERE id = 1').get() as { c: string | null };
    return r.c ? (JSON.parse(r.c) as CompetenceReference) : null;
  }

  setCompetenceReference(ref: CompetenceReference | null): void {
    this.q('UPDATE trainer_state SET competence_reference = ? WHERE id = 1').run(ref ? JSON.stringify(ref) : null);
  }

  /** The versions rollbacks issued, oldest first, each with the checkpoint it served again (null: the base model). */
  rollbackVersions(): Array<{ version: number; checkpointId: string | null; createdAt: number }> {
    return this.q(
      "SELECT version, checkpoint_id AS checkpointId, created_at AS createdAt FROM adapter_versions WHERE reason = 'rollback' ORDER BY version",
    ).all() as Array<{ version: number; checkpointId: string | null; createdAt: number }>;
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
}
