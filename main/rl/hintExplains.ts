/**
 * Whether a judge's hint explains the complaint it was drawn from (docs/learning-loop.md §3): the
 * hinted teacher must find the turn's answer less likely than the policy did. A hint the answer
 * already satisfies ("be brief" after "a bare number looks rude") leaves the mean of
 * log π_teacher − log π_old near zero or above it.
 */
import type { TrainingConfig } from '../protocol/training.js';
import type { NewSample } from '../store/learnStore.js';

/**
 * Whether a hint is worth rolling out (`rollout_min_gap`): a typed hint always; a judge's hint
 * when the turn's own OPD sample pushes its answer down (the mean of log π_teacher − log π_old
 * over its tokens, the OPD advantage, is at most −rollout_min_gap). A hint that
 * does not explain what the user disliked (say, "be brief" after "a bare number looks rude") leaves
 * that mean near zero or above it, and a rollout under it would write the disliked answer again.
 */
export function explains(
  cfg: TrainingConfig,
  hintSource: NewSample['hintSource'],
  teacherLogprobs: ArrayLike<number>,
  oldLogprobs: ArrayLike<number>,
): boolean {
  // rollout_min_gap 0 rolls out every hint (hint_min_gap says that with null).
  return hintPasses(hintSource, meanGap(teacherLogprobs, oldLogprobs), cfg.rollout_min_gap === 0 ? null : cfg.rollout_min_gap);
}

/**
 * Why a judge's hint does not train the turn's own OPD sample (`hint_min_gap`), in the words of the
 * `sample.judged` event, or null when it trains: a typed hint always does; a judge's hint when the
 * hinted teacher pushes the turn's answer down by at least that much per token (the test `explains`
 * makes with rollout_min_gap). With null, every hint trains.
 */
export function droppedHintReason(
  cfg: TrainingConfig,
  hintSource: NewSample['hintSource'],
  teacherLogprobs: ArrayLike<number>,
  oldLogprobs: ArrayLike<number>,
): string | null {
  const gap = meanGap(teacherLogprobs, oldLogprobs);
  if (hintPasses(hintSource, gap, cfg.hint_min_gap)) return null;
  const by = gap === null ? 'no token could be compared' : `${gap >= 0 ? '+' : ''}${gap.toFixed(3)} nats per token`;
  return `the judge's hint does not explain the complaint (under it the answer is not less likely by ${cfg.hint_min_gap} nats per token: ${by}), so it does not train (hint_min_gap)`;
}

/**
 * The one test both settings make: a typed hint passes; a judge's hint passes when the hinted
 * teacher finds the answer less likely than the policy did, `gap` (the mean of
 * log π_teacher − log π_old per token) at most −minGap. With minGap null every hint passes.
 */
function hintPasses(hintSource: NewSample['hintSource'], gap: number | null, minGap: number | null): boolean {
  if (hintSource === 'feedback' || minGap === null) return true;
  return gap !== null && gap <= -minGap;
}

/** The mean of teacher − old over the tokens where both are finite (null: none are). */
export function meanGap(teacher: ArrayLike<number>, old: ArrayLike<number>): number | null {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < Math.min(teacher.length, old.length); i++) {
    const d = teacher[i] - old[i];
    if (Number.isFinite(d)) {
      sum += d;
      n++;
    }
  }
  return n ? sum / n : null;
}
