import type { LoraAdapter } from '../engine/index.js';
import type { TrainingConfig } from '../protocol/training.js';
import type { CompetenceMeasure, WholeSetMeasures } from './competenceGate.js';
import { loadCheckpointAdapter } from './loadCheckpointAdapter.js';
import type { TrainerContext } from './trainerContext.js';

/**
 * Close calls confirmed on the whole competence set (`competence_confirm`, docs/learning-loop.md,
 * "The competence gate"). On a sample of 96 prompts one answer is a point; a margin of 3 points is
 * then two answers, and a candidate one answer past it can be held back again and again while it
 * is well within the margin on the whole set. A verdict that close is decided on all the prompts.
 */

/** Whether a sample's verdict is close: its drop within `competence_confirm` of the margin, either side. */
export function closeCall(accuracy: number, reference: number, c: TrainingConfig): boolean {
  if (c.competence_confirm <= 0) return false;
  return Math.abs(reference - accuracy - c.competence_margin) <= c.competence_confirm + 1e-9;
}

export interface Confirmation {
  /** The candidate on the whole set. */
  measure: CompetenceMeasure;
  /** The best live policy on the whole set (the base model's accuracy at least). */
  reference: { accuracy: number; source: string };
  /** Seconds it took, the measures of the base model and the live policy included. */
  seconds: number;
}

/**
 * Measures the candidate on the whole set, diffed against the live policy's answers (measured first
 * when not known). Each policy's answers on the sample are reused: the sample is the set's first prompts.
 */
export async function confirmOnWholeSet(ctx: TrainerContext, candidate: LoraAdapter, onSample: CompetenceMeasure): Promise<Confirmation> {
  const t0 = performance.now();
  const { gate, config: c, model } = ctx;
  const whole = gate.wholeSet(c);
  // The gate keeps the base model's answers on the sample from when it was live.
  whole.base ??= await gate.measure(model, null, c, { whole: true, known: gate.baseMeasure(c) });
  const live = await liveOnWholeSet(ctx, whole, whole.base);
  raiseBest(whole, whole.base.accuracy, 'base');
  if (live.checkpoint) raiseBest(whole, live.measure.accuracy, live.checkpoint);
  const measure = await gate.measure(model, candidate, c, { like: live.measure, whole: true, known: onSample });
  return { measure, reference: whole.best!, seconds: (performance.now() - t0) / 1000 };
}

/** After a confirmed candidate went live: it is the live policy on the whole set, and maybe the best. */
export function confirmedLive(ctx: TrainerContext, checkpoint: string, measure: CompetenceMeasure): void {
  const whole = ctx.gate.wholeSet(ctx.config);
  whole.live = { checkpoint, measure };
  raiseBest(whole, measure.accuracy, checkpoint);
}

async function liveOnWholeSet(
  ctx: TrainerContext,
  whole: WholeSetMeasures,
  base: CompetenceMeasure,
): Promise<{ checkpoint: string | null; measure: CompetenceMeasure }> {
  const checkpoint = ctx.policy.checkpoint;
  if (whole.live && whole.live.checkpoint === checkpoint) return whole.live;
  let measure = base;
  if (checkpoint) {
    // The trainer holds the candidate now; the live adapter is read from its checkpoint.
    const adapter = loadCheckpointAdapter(ctx.opts.dataDir, checkpoint, ctx.model.config);
    try {
      const known = ctx.gate.liveMeasure(ctx.config, checkpoint);
      measure = await ctx.gate.measure(ctx.model, adapter, ctx.config, { like: base, whole: true, known });
    } finally {
      adapter.dispose();
    }
  }
  whole.live = { checkpoint, measure };
  return whole.live;
}

function raiseBest(whole: WholeSetMeasures, accuracy: number, source: string): void {
  whole.accuracies.set(source, accuracy); // a reference check (competenceReference.ts) need not measure it again
  if (!whole.best || accuracy > whole.best.accuracy) whole.best = { accuracy, source };
}
