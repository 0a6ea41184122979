import type { LoraAdapter } from '../engine/index.js';
import type { CompetenceReference } from '../store/learnStore.js';
import { competenceVerdict, percent as pct, type WholeSetMeasures } from './competenceGate.js';
import { loadCheckpointAdapter } from './loadCheckpointAdapter.js';
import type { TrainerContext } from './trainerContext.js';

/**
 * The gate's reference, kept honest (docs/learning-loop.md, "The competence gate"). The reference
 * is the best live policy's accuracy on the sample, and a live policy that scores above it there
 * is, more often than not, one whose changed answers happened to fall right on those prompts.
 * Taken at that score, the reference held every later candidate to a lucky draw (the winner's
 * curse). So a rise on the sample stays unconfirmed, above a `floor` (the last reference the whole
 * set confirmed), until a verdict hinges on it: a candidate held back against it but within the
 * margin of the floor. Then the policy that set it is measured on the whole set against the
 * floor's, and the reference becomes the floor raised by that gain (at most to the sample score;
 * not at all when the whole set shows none). Only the checks that need it pay for it.
 */

/**
 * The reference after a candidate with this accuracy on the sample went live. A sample that is the
 * whole set (`wholeSet`) needs no confirmation: measuring the policy on the whole set again would
 * give the same answers, so the rise stands confirmed.
 */
export function referenceAfterLive(ref: CompetenceReference, checkpoint: string, accuracy: number, wholeSet = false): CompetenceReference {
  if (accuracy <= ref.accuracy) return ref;
  if (wholeSet) return { key: ref.key, accuracy, source: checkpoint, checked: true };
  return { key: ref.key, accuracy, source: checkpoint, floor: ref.floor ?? { accuracy: ref.accuracy, source: ref.source } };
}

/** Whether a verdict against `ref` hinges on its unconfirmed rise: held back against it, not against its floor. */
export function hingesOnRise(accuracy: number, n: number, ref: CompetenceReference, margin: number): boolean {
  if (!ref.floor) return false;
  const against = (r: { accuracy: number; source: string }) => competenceVerdict(accuracy, n, r, margin).heldBack;
  return against(ref) && !against(ref.floor);
}

/** Confirms an unconfirmed reference on the whole set: the floor raised by what its policy gained there. */
export async function confirmReference(
  ctx: TrainerContext,
  ref: CompetenceReference,
): Promise<{ reference: CompetenceReference; seconds: number }> {
  const floor = ref.floor;
  if (!floor) return { reference: ref, seconds: 0 };
  const t0 = performance.now();
  const whole = ctx.gate.wholeSet(ctx.config);
  const holder = await wholeAccuracy(ctx, whole, ref.source);
  const under = typeof holder === 'number' ? await wholeAccuracy(ctx, whole, floor.source) : holder;
  if (typeof under !== 'number' || typeof holder !== 'number') {
    // A checkpoint it needs is gone or unreadable: the verdict goes by the rise unchecked, as it did before checks existed.
    ctx.log(`competence gate: the reference's rise cannot be checked (${typeof holder === 'number' ? under : holder}); it stands`);
    return { reference: ref, seconds: (performance.now() - t0) / 1000 };
  }
  const gain = Math.min(holder - under, ref.accuracy - floor.accuracy);
  const reference: CompetenceReference =
    gain > 0
      ? { key: ref.key, accuracy: floor.accuracy + gain, source: ref.source, checked: true }
      : { key: ref.key, ...floor, checked: true };
  const seconds = (performance.now() - t0) / 1000;
  const name = (s: string) => (s === 'base' ? 'the base model' : s);
  ctx.log(
    `competence gate: the reference (${pct(ref.accuracy)} on the sample, ${name(ref.source)}) checked on all ${ctx.gate.set!.items.length} prompts: ` +
      `${pct(holder)} against ${pct(under)} (${name(floor.source)}), so it is ${pct(reference.accuracy)} (${seconds.toFixed(1)} s, counted in the check's time)`,
  );
  return { reference, seconds };
}

/**
 * A policy's accuracy on the whole set ('base' or a checkpoint id), measured once and remembered;
 * for a checkpoint whose files are gone or unreadable, why (a sentence).
 */
async function wholeAccuracy(ctx: TrainerContext, whole: WholeSetMeasures, source: string): Promise<number | string> {
  const known = whole.accuracies.get(source);
  if (known !== undefined) return known;
  const { gate, config: c, model } = ctx;
  // The gate keeps the base model's answers on the sample (the set's first prompts) from when it was live.
  whole.base ??= await gate.measure(model, null, c, { whole: true, known: gate.baseMeasure(c) });
  whole.accuracies.set('base', whole.base.accuracy);
  if (source === 'base') return whole.base.accuracy;
  let adapter: LoraAdapter;
  try {
    adapter = loadCheckpointAdapter(ctx.opts.dataDir, source, model.config);
  } catch (err) {
    return `${source} could not be read: ${(err as Error).message}`;
  }
  try {
    const m = await gate.measure(model, adapter, c, { whole: true, like: whole.base, known: gate.liveMeasure(c, source) });
    whole.accuracies.set(source, m.accuracy);
    return m.accuracy;
  } finally {
    adapter.dispose();
  }
}
