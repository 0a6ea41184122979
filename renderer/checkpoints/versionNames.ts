/**
 * How versions and checkpoints are named on screen. A rollback serves an earlier checkpoint (or the
 * base model) under a version number of its own (v5 = v2 again), so the answers before and after it
 * stay apart; these names tie such a number to the row it belongs to, and turn the core's folder
 * names (`step-000006`) into the versions a person knows.
 */
import type { CheckpointInfo, RollbackVersion } from '../api/contract.js';

/** A checkpoint's folder name as words: 'step-000006' → 'step 6'. */
export function stepName(id: string): string {
  const m = /^step-0*(\d+)$/.exec(id);
  return m ? `step ${m[1]}` : id;
}

/** The versions rollbacks served a checkpoint (null: the base model) under, oldest first. */
export function rollbackVersionsOf(rollbacks: RollbackVersion[], id: string | null): number[] {
  return rollbacks.filter((r) => r.checkpoint_id === id).map((r) => r.version);
}

/** "again as v5, v7" for a row some rollbacks served again; '' otherwise. */
export function againText(rollbacks: RollbackVersion[], id: string | null): string {
  const versions = rollbackVersionsOf(rollbacks, id);
  return versions.length ? `again as ${versions.map((v) => `v${v}`).join(', ')}` : '';
}

/**
 * What a served version is, in words: "v4 (trained in step 4)", "v5 (v2 again, trained in step 2)",
 * "v7 (the base model again)", "v0 (the base model)".
 */
export function describeVersion(version: number, rows: CheckpointInfo[], rollbacks: RollbackVersion[]): string {
  if (version === 0) return 'v0 (the base model)';
  const own = rows.find((r) => r.adapter_version === version);
  if (own) return `v${version} (trained in step ${own.step})`;
  const rb = rollbacks.find((r) => r.version === version);
  if (!rb) return `v${version}`;
  if (rb.checkpoint_id === null) return `v${version} (the base model again)`;
  const row = rows.find((r) => r.id === rb.checkpoint_id);
  return row
    ? `v${version} (v${row.adapter_version} again, trained in step ${row.step})`
    : `v${version} (${stepName(rb.checkpoint_id)} again)`;
}

/** A text from the core with its checkpoint folder names as versions: "… (52 %, step-000003)" → "… (52 %, v3)". */
export function readableCheckpointText(text: string, rows: CheckpointInfo[]): string {
  return text.replace(/\bstep-\d{6,}\b/g, (id) => {
    const row = rows.find((r) => r.id === id);
    return row ? `v${row.adapter_version}` : stepName(id);
  });
}

/**
 * Why a row was trained from a checkpoint that already had a child, in words for the "From" column:
 * training went back to it after a rollback, or after that child was held back by the competence gate.
 */
export function branchNote(bypassed: CheckpointInfo): { short: string; long: string } {
  const v = `v${bypassed.adapter_version}`;
  if (bypassed.competence?.held_back)
    return {
      short: `after ${v} was held back`,
      long: `${v}, trained from the same checkpoint, did worse on the competence check and was held back, so training went on from here again.`,
    };
  return {
    short: 'after a rollback',
    long: `A rollback made this checkpoint live again, so training went on from it; ${v} and what followed it are not in this line.`,
  };
}
