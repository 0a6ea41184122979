import type { LoraAdapter } from '../engine/index.js';
import type { CompetenceReference } from '../store/learnStore.js';
import { percent as pct, type CompetenceMeasure, type WholeSetMeasures } from './competenceGate.js';
import { loadCheckpointAdapter } from './loadCheckpointAdapter.js';
import type { TrainerContext } from './trainerContext.js';

/**
 * How far a candidate that goes live raises the gate's reference (docs/learning-loop.md, "The
 * competence gate"). The reference is the best live policy's accuracy on the sample; a candidate
 * that scores above it there is, more often than not, one whose changed answers happened to fall
 * right on those 96 prompts. Taken at its sample score, the reference would keep every such lucky
 * draw and hold the policies after it to it (the winner's curse). So a rise is measured on the
 * whole set: the candidate against the policy the reference came from, and the reference rises by
 * that gain, at most to the candidate's score on the sample, and not at all when the whole set
 * shows none.
 */
export async function raisedReference(
  ctx: TrainerContext,
  checkpoint: string,
  candidate: LoraAdapter,
  onSample: CompetenceMeasure,
  ref: CompetenceReference,
): Promise<{ reference: CompetenceReference; seconds: number }> {
  const t0 = performance.now();
  const { gate, config: c, model } = ctx;
  const whole = gate.wholeSet(c);
  const holder = await wholeAccuracy(ctx, whole, ref.source);
  // Answers are diffed against the live policy's on the whole set when known, else the base model's
  // (measured by now): either way most of them are unchanged, so few are decoded.
  const live = ctx.policy.checkpoint;
  const like = whole.live?.checkpoint === live ? whole.live.measure : whole.base;
  const m = await gate.measure(model, candidate, c, { whole: true, known: onSample, like });
  whole.accuracies.set(checkpoint, m.accuracy);
  whole.live = { checkpoint, measure: m };
  const gain = Math.min(m.accuracy - holder, onSample.accuracy - ref.accuracy);
  const next = gain > 0 ? { key: ref.key, accuracy: ref.accuracy + gain, source: checkpoint } : ref;
  const from = ref.source === 'base' ? 'the base model' : ref.source;
  const seconds = (performance.now() - t0) / 1000;
  ctx.log(
    `competence gate: ${checkpoint} scored above the reference on the sample (${pct(onSample.accuracy)} against ${pct(ref.accuracy)}); ` +
      `on all ${m.n} prompts ${pct(m.accuracy)} against ${pct(holder)} (${from}), so the reference ` +
      (gain > 0 ? `rises to ${pct(next.accuracy)}` : `stays at ${pct(ref.accuracy)}`) +
      ` (${seconds.toFixed(1)} s, counted in the check's time)`,
  );
  return { reference: next, seconds };
}

/** A policy's accuracy on the whole set ('base' or a checkpoint id), measured once and remembered. */
async function wholeAccuracy(ctx: TrainerContext, whole: WholeSetMeasures, source: string): Promise<number> {
  const known = whole.accuracies.get(source);
  if (known !== undefined) return known;
  const { gate, config: c, model } = ctx;
  // While the base model is live, the gate has its answers on the sample: the set's first prompts.
  whole.base ??= await gate.measure(model, null, c, { whole: true, known: gate.liveMeasure(c, null) });
  whole.accuracies.set('base', whole.base.accuracy);
  if (source === 'base') return whole.base.accuracy;
  const adapter = loadCheckpointAdapter(ctx.opts.dataDir, source, model.config);
  try {
    const m = await gate.measure(model, adapter, c, { whole: true, like: whole.base, known: gate.liveMeasure(c, source) });
    whole.accuracies.set(source, m.accuracy);
    return m.accuracy;
  } finally {
    adapter.dispose();
  }
}
