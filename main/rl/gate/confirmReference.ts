import type { LoraAdapter } from '../../engine/index.js';
import type { CompetenceReference } from '../../store/learnStore.js';
import { loadCheckpointAdapter } from '../loadCheckpointAdapter.js';
import type { TrainerContext } from '../trainerContext.js';
import type { WholeSetMeasures } from './competenceGate.js';
import { percent as pct } from './decide.js';
import { confirmedReference } from './gateState.js';

/**
 * Measures an unconfirmed rise of the reference on the whole set, when a verdict hinges on it
 * (decide.ts, `confirm reference`): the policy that set it and the floor's, each measured once and
 * remembered. Only the checks that need it pay for it (docs/experiments/008-gate-reference.md).
 */

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
  const reference = confirmedReference(ref, holder, under);
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
