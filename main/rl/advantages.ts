/**
 * Per-token advantages (docs/learning-loop.md §4). Plain arithmetic on stored numbers: advantages do
 * not depend on the parameters being trained, so they are computed once, before the step.
 */

export interface AdvantageConfig {
  /** Weight of the evaluative (RL) term. Reference default 1. */
  wRl: number;
  /** Weight of the directive (OPD) term. Reference default 1. */
  wOpd: number;
  /** Clip each OPD advantage to [−C, C]; null = no clip (the reference code's default). */
  opdClip: number | null;
  /**
   * The RL term skips tokens the rollout policy sampled with probability at least this (it was
   * sure of them: digits of a sum it knows, the rest of a word); null = every token gets it.
   */
  rlSkipConfident?: number | null;
}

/** What one sample contributes to advantages. */
export interface AdvantageInputs {
  /** r ∈ {−1, 0, +1} for the RL part, or null when the sample has no RL part. */
  reward: number | null;
  /** log π_teacher of each response token, or null when the sample has no OPD part. */
  teacherLogprobs: readonly number[] | null;
  /** log π_old of each response token (recorded while sampling). */
  oldLogprobs: readonly number[];
}

/**
 * A_t = m_t · w_rl · r + w_opd · clip(log π_teacher(a_t) − log π_old(a_t), −C, C): each term present
 * only when the sample has that part. m_t = 0 when `rlSkipConfident` is set and π_old(a_t) ≥ it,
 * else 1: a sequence-level reward says the *turn* was (un)wanted, not which tokens made it so, and
 * the tokens a policy is sure of are mostly competence (the digits of a sum), not style choices.
 * A non-finite teacher or rollout log-prob gives A_t = 0 for that token (a NaN advantage would
 * poison the whole step; the token simply carries no signal).
 */
export function tokenAdvantages(s: AdvantageInputs, cfg: AdvantageConfig): number[] {
  const T = s.oldLogprobs.length;
  if (s.teacherLogprobs && s.teacherLogprobs.length !== T) {
    throw new Error(`teacher log-probs cover ${s.teacherLogprobs.length} tokens; the response has ${T}`);
  }
  const rl = s.reward === null ? 0 : cfg.wRl * s.reward;
  const out = new Array<number>(T);
  const sure = cfg.rlSkipConfident == null ? Infinity : Math.log(cfg.rlSkipConfident);
  for (let t = 0; t < T; t++) {
    let a = s.oldLogprobs[t] >= sure ? 0 : rl;
    if (s.teacherLogprobs) {
      let d = s.teacherLogprobs[t] - s.oldLogprobs[t];
      if (!Number.isFinite(d)) d = 0;
      if (cfg.opdClip !== null) d = Math.max(-cfg.opdClip, Math.min(cfg.opdClip, d));
      a += cfg.wOpd * d;
    }
    out[t] = Number.isFinite(a) ? a : 0;
  }
  return out;
}
