import type { Competence } from '../protocol/checkpoints.js';
import type { StepMetrics } from '../protocol/training.js';
import type { Db } from './database.js';
import type { Prepare } from './statementCache.js';

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
  /** What the user named it, and their note on it (null: none). */
  name?: string | null;
  note?: string | null;
  /** The competence gate's verdict (null: not checked). */
  competence?: Competence | null;
  /** The prompts the verdict is on (set hash : prompts : max tokens); null when not checked. */
  competenceKey?: string | null;
  /** Saved and waiting for the gate: not live yet. */
  gatePending?: boolean;
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
  name: string | null;
  note: string | null;
  competence: string | null;
  competence_key: string | null;
  gate_pending: number;
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
    name: r.name,
    note: r.note,
    competence: r.competence ? JSON.parse(r.competence) : null,
    competenceKey: r.competence_key,
    gatePending: r.gate_pending === 1,
  };
}

/** The `checkpoints` table: one row per saved step (its files live in the data folder's checkpoints/). */
export class CheckpointTable {
  constructor(
    private readonly db: Db,
    private readonly q: Prepare,
  ) {}

  /** Adds a checkpoint's row; runs inside the caller's transaction (the step's commit). */
  insert(c: Omit<CheckpointRow, 'pinned'>): void {
    this.q(
      'INSERT INTO checkpoints (id, step, adapter_version, parent_id, created_at, metrics, samples, lora, gate_pending) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(
      c.id,
      c.step,
      c.adapterVersion,
      c.parentId,
      c.createdAt,
      JSON.stringify(c.metrics),
      JSON.stringify(c.samples),
      JSON.stringify(c.lora),
      c.gatePending ? 1 : 0,
    );
  }

  /**
   * Stores the gate's verdict (null: it went live unchecked); the checkpoint no longer waits for
   * it. Runs inside the caller's transaction.
   */
  setCompetence(id: string, competence: Competence | null, key: string | null): void {
    this.q('UPDATE checkpoints SET competence = ?, competence_key = ?, gate_pending = 0 WHERE id = ?').run(
      competence ? JSON.stringify(competence) : null,
      key,
      id,
    );
  }

  /** The checkpoint waiting for the gate, if any (the newest). */
  pending(): CheckpointRow | null {
    const r = this.q('SELECT * FROM checkpoints WHERE gate_pending = 1 ORDER BY step DESC LIMIT 1').get() as CheckpointDbRow | undefined;
    return r ? toCheckpoint(r) : null;
  }

  all(): CheckpointRow[] {
    return (this.q('SELECT * FROM checkpoints ORDER BY step').all() as CheckpointDbRow[]).map(toCheckpoint);
  }

  get(id: string): CheckpointRow | null {
    const r = this.q('SELECT * FROM checkpoints WHERE id = ?').get(id) as CheckpointDbRow | undefined;
    return r ? toCheckpoint(r) : null;
  }

  setPinned(id: string, pinned: boolean): boolean {
    return this.q('UPDATE checkpoints SET pinned = ? WHERE id = ?').run(pinned ? 1 : 0, id).changes > 0;
  }

  /** Sets the user's name and note on a checkpoint (null clears one; undefined leaves it). */
  setLabel(id: string, label: { name?: string | null; note?: string | null }): boolean {
    const cur = this.get(id);
    if (!cur) return false;
    const name = label.name === undefined ? (cur.name ?? null) : label.name;
    const note = label.note === undefined ? (cur.note ?? null) : label.note;
    return this.q('UPDATE checkpoints SET name = ?, note = ? WHERE id = ?').run(name, note, id).changes > 0;
  }

  deleteRows(ids: string[]): void {
    const del = this.q('DELETE FROM checkpoints WHERE id = ?');
    this.db.transaction(() => ids.forEach((id) => del.run(id))).immediate();
  }
}
