import type { Competence } from '../../protocol/checkpoints.js';
import type { CheckpointRow, CompetenceReference, LearnStore } from '../../store/learnStore.js';

/**
 * What the competence gate stores, and the only ways it changes (docs/learning-loop.md, "The
 * competence gate"). Two things, both in the database so a restart picks them up:
 *
 * - a checkpoint's verdict: saved `pending` (gatePending) by its step, it becomes `live`, `held
 *   back`, `live unchecked` (the gate was turned off before it was checked) or `left out` (a
 *   rollback chose another policy meanwhile), and never changes again;
 * - the reference, the best live policy's accuracy: `measured` from the base model for a new set
 *   of prompts, `raised` by a live policy that scores above it, `confirmed` on the whole set.
 *
 * The reference's transitions are pure; {@link settle} records a checkpoint's.
 */

/** A pending checkpoint's way out of pending. `scoredOn` names the prompts its score is on (CompetenceGate.key). */
export type Settled =
  | { to: 'live'; version: number; competence: Competence; scoredOn: string; reference: CompetenceReference }
  | { to: 'held back'; competence: Competence; scoredOn: string }
  | { to: 'live unchecked'; version: number }
  | { to: 'left out' };

/** Records a pending checkpoint's transition, with the reference it leaves, in one transaction. */
export function settle(store: LearnStore, cp: CheckpointRow, s: Settled): void {
  switch (s.to) {
    case 'live':
      return store.recordGateVerdict(cp.id, s.competence, s.scoredOn, s.version, s.reference);
    case 'held back':
      return store.recordGateVerdict(cp.id, s.competence, s.scoredOn, null, null);
    case 'live unchecked':
      return store.recordGateVerdict(cp.id, null, null, s.version, null);
    case 'left out':
      return store.recordGateVerdict(cp.id, null, null, null, null);
  }
}

/** The reference for a new set of prompts (`key`): the base model's accuracy on them. */
export function measuredReference(key: string, baseAccuracy: number): CompetenceReference {
  return { key, accuracy: baseAccuracy, source: 'base' };
}

/**
 * The reference after `checkpoint` went live with this accuracy on the check's prompts: raised
 * when it scores above it. A rise on a sample is, more often than not, luck on those prompts (the
 * winner's curse), so it stays unconfirmed above a floor, the last reference the whole set
 * confirmed, until a verdict hinges on it (decide.ts). A sample that is the whole set (`wholeSet`)
 * needs no confirmation: measuring the policy on the whole set again would give the same answers.
 */
export function raisedReference(ref: CompetenceReference, checkpoint: string, accuracy: number, wholeSet: boolean): CompetenceReference {
  if (accuracy <= ref.accuracy) return ref;
  if (wholeSet) return { key: ref.key, accuracy, source: checkpoint, checked: true };
  return { key: ref.key, accuracy, source: checkpoint, floor: ref.floor ?? { accuracy: ref.accuracy, source: ref.source } };
}

/**
 * An unconfirmed reference, confirmed on the whole set where its policy scored `holder` and the
 * floor's `under`: the floor raised by that gain, at most to the sample score; the floor itself
 * when the whole set shows none.
 */
export function confirmedReference(ref: CompetenceReference, holder: number, under: number): CompetenceReference {
  const floor = ref.floor;
  if (!floor) return ref;
  const gain = Math.min(holder - under, ref.accuracy - floor.accuracy);
  return gain > 0
    ? { key: ref.key, accuracy: floor.accuracy + gain, source: ref.source, checked: true }
    : { key: ref.key, ...floor, checked: true };
}

/**
 * The reference after a rollback made `target` live by hand (null: the base model): it counts
 * among the live policies the reference is the best of, when its recorded score is on the same
 * prompts (`key`) and above the reference.
 */
export function referenceAfterRollback(
  ref: CompetenceReference,
  target: CheckpointRow | null,
  key: string,
  wholeSet: boolean,
): CompetenceReference {
  if (!target?.competence || target.competenceKey !== ref.key || ref.key !== key) return ref;
  return raisedReference(ref, target.id, target.competence.accuracy, wholeSet);
}
