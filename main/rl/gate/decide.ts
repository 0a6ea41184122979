import type { TrainingConfig } from '../../protocol/training.js';
import type { FamilyScore } from './families.js';

/**
 * The competence gate's decision (docs/learning-loop.md, "The competence gate"), pure: a
 * candidate's score on the check's prompts against the reference, the best live policy's score.
 * Everything the gate does around it (measuring, confirming the reference, recording, going live)
 * is in checkpointGate.ts; the reference's and the checkpoint's transitions are in gateState.ts.
 */

/** A candidate's score on the prompts a check answers. */
export interface GateMeasure {
  accuracy: number;
  /** Prompts answered. */
  n: number;
  /** Each task family's scores on the same prompts; null when families are not checked (CompetenceGate.checksFamilies). */
  families: FamilyScore[] | null;
}

/** What a candidate is held to: the best live policy's accuracy, and where a rise of it is unconfirmed, the floor under it. */
export interface GateReference {
  accuracy: number;
  /** Whose accuracy it is: 'base' or a checkpoint id. */
  source: string;
  /** The last reference the whole set confirmed, under an unconfirmed rise (gateState.ts, raisedReference). */
  floor?: { accuracy: number; source: string };
}

/** The settings the decision reads. */
export type GateSettings = Pick<TrainingConfig, 'competence_margin' | 'competence_family_margin'>;

/**
 * `live`: within every margin. `held back`: with the sentence the checkpoint records and the
 * receipts show. `confirm reference`: the verdict hinges on the reference's unconfirmed rise (held
 * back against it, not against its floor): measure the rise on the whole set, then decide again
 * on the reference as it then stands.
 */
export type Verdict = { kind: 'live' } | { kind: 'held back'; reason: string } | { kind: 'confirm reference' };

/** The decision on a candidate; see {@link Verdict}. The overall margin first, then each family's. */
export function decide(measure: GateMeasure, reference: GateReference, config: GateSettings): Verdict {
  const margin = config.competence_margin;
  const overall = overallReason(measure, reference, margin);
  if (overall !== null) {
    const floor = reference.floor;
    if (floor && overallReason(measure, floor, margin) === null) return { kind: 'confirm reference' };
    return { kind: 'held back', reason: overall };
  }
  const familyMargin = config.competence_family_margin;
  const family = measure.families && familyMargin !== null ? familyReason(measure.families, familyMargin) : null;
  return family === null ? { kind: 'live' } : { kind: 'held back', reason: family };
}

/** Why a candidate falls more than `margin` below `reference` over all the prompts; null when it does not. */
function overallReason(m: GateMeasure, reference: { accuracy: number; source: string }, margin: number): string | null {
  const drop = reference.accuracy - m.accuracy;
  // A drop of exactly the margin passes; the epsilon keeps 3-point margins exact in floating point.
  if (drop <= margin + 1e-9) return null;
  const from = reference.source === 'base' ? 'the base model' : reference.source;
  return (
    `held back by the competence gate: ${percent(m.accuracy)} on ${m.n} held-out prompts, ${(100 * drop).toFixed(1)} points below ` +
    `the best live policy (${percent(reference.accuracy)}, ${from}); the margin is ${(100 * margin).toFixed(1)} points`
  );
}

/**
 * Why a candidate is held back because a family fell more than `margin` below the base model's
 * accuracy on it; null when none did. The overall margin averages a loss on one task away, so each
 * family is held to the base model too (docs/experiments/011-gate-per-family.md). A family the live
 * policy had already lost that much of (after a rollback, or a margin set later) holds a candidate
 * back only if it falls further, so training can win it back. The reason names the family that
 * fell furthest (ties: the first in name order).
 */
function familyReason(scores: FamilyScore[], margin: number): string | null {
  const drop = (f: FamilyScore) => f.base - f.accuracy;
  // As overall, a drop of exactly the margin passes.
  const failing = scores.filter((f) => drop(f) > margin + 1e-9 && f.accuracy < f.live);
  const worst = failing.sort((a, b) => drop(b) - drop(a) || a.family.localeCompare(b.family))[0];
  if (!worst) return null;
  return (
    `held back by the competence gate: ${percent(worst.accuracy)} on the ${worst.n} held-out ${worst.family} prompts, ` +
    `${(100 * drop(worst)).toFixed(1)} points below the base model (${percent(worst.base)}) and ` +
    `${(100 * (worst.live - worst.accuracy)).toFixed(1)} below the live policy; the family margin is ${(100 * margin).toFixed(1)} points`
  );
}

/** An accuracy as the gate's messages write it: `87.5 %`. */
export function percent(x: number): string {
  return `${(100 * x).toFixed(1)} %`;
}
