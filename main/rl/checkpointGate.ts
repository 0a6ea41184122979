import type { LoraAdapter } from '../engine/index.js';
import type { Competence } from '../protocol/checkpoints.js';
import type { CheckpointRow, CompetenceReference } from '../store/learnStore.js';
import { familyScores, familySummary, familyVerdict, type FamilyScore } from './competenceFamilies.js';
import { competenceVerdict, percent as pct, type CompetenceMeasure } from './competenceGate.js';
import { confirmReference, hingesOnRise, referenceAfterLive } from './competenceReference.js';
import { restoreCheckpoint } from './restoreCheckpoint.js';
import type { TrainerContext } from './trainerContext.js';

/**
 * The competence gate in the learning loop (docs/learning-loop.md, "The competence gate"): before
 * a step, the live policy's answers and the reference accuracy are at hand; after it, the new
 * checkpoint answers the same held-out prompts and goes live only if its accuracy is within the
 * margin of the best live policy. A checkpoint held back stays saved (a rollback can still make it
 * live) and training continues from the live policy.
 */

/** Whether this step's checkpoint waits for the gate. */
export function gateOn(ctx: TrainerContext): boolean {
  return ctx.gate.on(ctx.config);
}

/**
 * Measures what a check compares with, if not known yet: the live policy's answers (the next
 * candidate is diffed against them) and the reference accuracy, the best of the base model and
 * the live policy. Runs before a step, while the trained adapter is still the live one.
 */
export async function prepareGate(ctx: TrainerContext): Promise<void> {
  const { config: c, gate, policy, store } = ctx;
  if (!gate.on(c)) return;
  const known = gate.liveMeasure(c, policy.checkpoint);
  if (known) {
    // competence_family_margin set since the last start, with an adapter live: the base model was never measured.
    if (gate.checksFamilies(c) && !gate.baseMeasure(c)) await measureBase(ctx, known);
    return;
  }
  const key = gate.key(c);
  const live = await gate.measure(ctx.model, policy.adapter, c);
  gate.setLive(c, policy.checkpoint, live);
  let ref = store.competenceReference();
  // Per-family verdicts compare with the base model's answers, which a restart with an adapter live has not measured yet.
  if (ref?.key !== key || (gate.checksFamilies(c) && !gate.baseMeasure(c))) {
    const base = await measureBase(ctx, live);
    if (ref?.key !== key) ref = { key, accuracy: base.accuracy, source: 'base' };
  }
  if (policy.checkpoint) ref = referenceAfterLive(ref, policy.checkpoint, live.accuracy, gate.readsWholeSet(c));
  store.setCompetenceReference(ref);
  ctx.log(
    `competence gate: the live policy (${policy.checkpoint ?? 'base model'}) answers ${pct(live.accuracy)} right (${live.seconds.toFixed(1)} s); reference ${pct(ref.accuracy)}`,
  );
}

/** The base model's measure on the sample, diffed against the live policy's (which it is, with no adapter live). */
async function measureBase(ctx: TrainerContext, live: CompetenceMeasure): Promise<CompetenceMeasure> {
  const { config: c, gate, policy } = ctx;
  const base = policy.adapter ? await gate.measure(ctx.model, null, c, { like: live }) : live;
  gate.setBase(c, base);
  ctx.log(
    `competence gate: the base model answers ${pct(base.accuracy)} of ${base.n} held-out prompts right (${base.seconds.toFixed(1)} s)`,
  );
  return base;
}

/** Checks a checkpoint that was just saved with `gatePending`, then makes it live or holds it back. */
export async function gateCheckpoint(ctx: TrainerContext, cp: CheckpointRow, adapter: LoraAdapter): Promise<void> {
  const { config: c, gate, store } = ctx;
  const key = gate.key(c);
  const stored = store.competenceReference();
  const like = gate.liveMeasure(c, ctx.policy.checkpoint);
  if (!stored || stored.key !== key || !like) throw new Error('the competence gate was not prepared before the step');
  const m = await gate.measure(ctx.model, adapter, c, { like });
  // A verdict that hinges on a rise of the reference the whole set has not confirmed confirms it first.
  const checked = hingesOnRise(m.accuracy, m.n, stored, c.competence_margin) ? await confirmReference(ctx, stored) : null;
  if (checked) store.setCompetenceReference(checked.reference);
  const ref = checked?.reference ?? stored;
  const overall = competenceVerdict(m.accuracy, m.n, ref, c.competence_margin);
  const families = familiesOf(ctx, m);
  const v = overall.heldBack || !families ? overall : familyVerdict(families, c.competence_family_margin!);
  const seconds = m.seconds + (checked?.seconds ?? 0);
  const competence: Competence = { accuracy: m.accuracy, n: m.n, held_back: v.heldBack, reason: v.reason, seconds };
  // The key names the prompts the recorded score is on (a rollback compares it only with scores on the same ones).
  if (v.heldBack) holdBack(ctx, cp, competence, key);
  else await goLive(ctx, cp, competence, key, m, referenceAfterLive(ref, cp.id, m.accuracy, gate.readsWholeSet(c)));
  ctx.emit({
    type: 'event',
    event: {
      event: 'checkpoint.saved',
      data: {
        checkpoint_id: cp.id,
        version: cp.adapterVersion,
        parent: cp.parentId,
        step: cp.step,
        metrics: {
          loss: cp.metrics.loss,
          reward_mean: cp.metrics.mean_reward,
          samples: cp.metrics.samples.total,
          tokens: cp.metrics.tokens,
        },
        competence: { accuracy: competence.accuracy, n: competence.n, held_back: competence.held_back, reason: competence.reason },
      },
    },
  });
  ctx.log(
    `competence gate: ${cp.id} answers ${pct(m.accuracy)} right (${m.generated} of ${m.n} answers changed, ${seconds.toFixed(1)} s): ` +
      (v.heldBack ? v.reason! : `live as adapter version ${cp.adapterVersion}`) +
      (families ? `; by family: ${familySummary(families)}` : ''),
  );
}

/**
 * Each family's scores on the prompts the overall verdict is on (the sample), against the base
 * model's and the live policy's answers to them; null when families are not checked.
 */
function familiesOf(ctx: TrainerContext, m: CompetenceMeasure): FamilyScore[] | null {
  const { gate, config: c } = ctx;
  if (!gate.checksFamilies(c)) return null;
  const base = gate.baseMeasure(c);
  const live = gate.liveMeasure(c, ctx.policy.checkpoint);
  if (!base || !live)
    throw new Error("the competence gate has no base model's or live policy's answers to compare each task family's with");
  return familyScores(gate.items(ctx.model, c), { candidate: m.correct, base: base.correct, live: live.correct });
}

/** Makes the checkpoint live with the reference from now on; `m` is its measure on the sample, which the next check goes by. */
async function goLive(
  ctx: TrainerContext,
  cp: CheckpointRow,
  competence: Competence,
  scoredOn: string,
  m: CompetenceMeasure,
  next: CompetenceReference,
): Promise<void> {
  ctx.store.recordGateVerdict(cp.id, competence, scoredOn, cp.adapterVersion, next);
  ctx.gate.setLive(ctx.config, cp.id, m);
  await ctx.policy.goLive(cp.adapterVersion, cp.id, 'trained');
}

/** Keeps the checkpoint out of service; training continues from the live policy's adapter and optimizer. */
function holdBack(ctx: TrainerContext, cp: CheckpointRow, competence: Competence, key: string): void {
  ctx.store.recordGateVerdict(cp.id, competence, key, null, null);
  restoreLive(ctx);
}

/** Loads the live policy's adapter and optimizer into the trainer (none: the base model). */
function restoreLive(ctx: TrainerContext): void {
  const live = ctx.policy.checkpoint;
  if (live) restoreCheckpoint(ctx, live);
  else ctx.policy.clear();
}

/**
 * After a restart: a checkpoint saved before the crash but never checked is checked now (or, with
 * the gate off, made live as it would have been).
 */
export async function resumePendingGate(ctx: TrainerContext): Promise<void> {
  const cp = ctx.store.pendingCheckpoint();
  if (!cp) return;
  // prepareGate measures the trainer's policy as the live one: after a check that failed, the
  // candidate may still be loaded, and measured as "live" it would raise the reference to itself.
  if (gateOn(ctx)) {
    restoreLive(ctx);
    await prepareGate(ctx);
  }
  // The candidate becomes the trained policy, as right after its step; a hold-back restores the live one.
  restoreCheckpoint(ctx, cp.id);
  if (gateOn(ctx)) return gateCheckpoint(ctx, cp, ctx.policy.adapter!);
  ctx.store.recordGateVerdict(cp.id, null, null, cp.adapterVersion, null);
  await ctx.policy.goLive(cp.adapterVersion, cp.id, 'trained');
  ctx.log(`${cp.id} was waiting for the competence gate, which is off now: live unchecked as adapter version ${cp.adapterVersion}`);
}

/**
 * A rollback made `target` live by hand: it counts among the live policies the reference is the
 * best of, and a checkpoint still waiting for the gate is left out of service (the user chose).
 */
export function gateAfterRollback(ctx: TrainerContext, target: string | null): void {
  const { store, config: c, gate } = ctx;
  const pending = store.pendingCheckpoint();
  if (pending) store.recordGateVerdict(pending.id, null, null, null, null);
  const cp = target ? store.checkpoint(target) : null;
  const ref = store.competenceReference();
  if (!cp?.competence || !ref || !gate.set || cp.competenceKey !== ref.key || ref.key !== gate.key(c)) return;
  if (cp.competence.accuracy > ref.accuracy) {
    store.setCompetenceReference(referenceAfterLive(ref, cp.id, cp.competence.accuracy, gate.readsWholeSet(c)));
  }
}
