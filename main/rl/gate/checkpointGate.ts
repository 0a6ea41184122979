import type { LoraAdapter } from '../../engine/index.js';
import type { Competence } from '../../protocol/checkpoints.js';
import type { CheckpointRow } from '../../store/learnStore.js';
import { restoreCheckpoint } from '../restoreCheckpoint.js';
import type { TrainerContext } from '../trainerContext.js';
import type { CompetenceMeasure } from './competenceGate.js';
import { confirmReference } from './confirmReference.js';
import { decide, percent as pct, type GateMeasure, type Verdict } from './decide.js';
import { familyScores, familySummary, type FamilyScore } from './families.js';
import { measuredReference, raisedReference, referenceAfterRollback, settle } from './gateState.js';

/**
 * The competence gate in the learning loop (docs/learning-loop.md, "The competence gate"): before
 * a step, the live policy's answers and the reference accuracy are at hand; after it, the new
 * checkpoint answers the same held-out prompts and decide.ts says whether it goes live. A
 * checkpoint held back stays saved (a rollback can still make it live) and training continues
 * from the live policy. What is stored changes only through gateState.ts's transitions.
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
    if (ref?.key !== key) ref = measuredReference(key, base.accuracy);
  }
  if (policy.checkpoint) ref = raisedReference(ref, policy.checkpoint, live.accuracy, gate.readsWholeSet(c));
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
  const families = familiesOf(ctx, m);
  const scored: GateMeasure = { accuracy: m.accuracy, n: m.n, families };
  let ref = stored;
  let confirming = 0;
  let v: Verdict = decide(scored, ref, c);
  if (v.kind === 'confirm reference') {
    const checked = await confirmReference(ctx, stored);
    store.setCompetenceReference(checked.reference);
    ref = checked.reference;
    confirming = checked.seconds;
    // Decided again on the reference as it now stands: confirmed, or (a checkpoint it needed is gone) as it was.
    v = decide(scored, { accuracy: ref.accuracy, source: ref.source }, c);
  }
  const seconds = m.seconds + confirming;
  const reason = v.kind === 'held back' ? v.reason : null;
  const competence: Competence = { accuracy: m.accuracy, n: m.n, held_back: reason !== null, reason, seconds };
  // The key names the prompts the recorded score is on (a rollback compares it only with scores on the same ones).
  if (reason !== null) {
    settle(store, cp, { to: 'held back', competence, scoredOn: key });
    restoreLive(ctx);
  } else {
    const next = raisedReference(ref, cp.id, m.accuracy, gate.readsWholeSet(c));
    settle(store, cp, { to: 'live', version: cp.adapterVersion, competence, scoredOn: key, reference: next });
    // The next check goes by the new live policy's answers.
    gate.setLive(c, cp.id, m);
    await ctx.policy.goLive(cp.adapterVersion, cp.id, 'trained');
  }
  emitVerdict(ctx, cp, competence);
  ctx.log(
    `competence gate: ${cp.id} answers ${pct(m.accuracy)} right (${m.generated} of ${m.n} answers changed, ${seconds.toFixed(1)} s): ` +
      (reason ?? `live as adapter version ${cp.adapterVersion}`) +
      (families ? `; by family: ${familySummary(families)}` : ''),
  );
}

/** The `checkpoint.saved` event again, now with the checkpoint's verdict. */
function emitVerdict(ctx: TrainerContext, cp: CheckpointRow, competence: Competence): void {
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
  settle(ctx.store, cp, { to: 'live unchecked', version: cp.adapterVersion });
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
  if (pending) settle(store, pending, { to: 'left out' });
  const ref = store.competenceReference();
  if (!ref || !gate.set) return;
  const next = referenceAfterRollback(ref, target ? store.checkpoint(target) : null, gate.key(c), gate.readsWholeSet(c));
  if (next !== ref) store.setCompetenceReference(next);
}
