import type { StoredTurn } from '../store/turnStore.js';
import type { ReadyTurn } from '../store/learnStore.js';
import { JudgeInputError } from './judge.js';
import { buildSamples, type SampleBuildContext } from './sampleBuilder.js';
import type { TrainerContext } from './trainerContext.js';

function sampleContext(ctx: TrainerContext, signal?: AbortSignal): SampleBuildContext {
  const { model, policy, judge, config } = ctx;
  return { model, policy: policy.adapter, policyVersion: policy.version, judge: judge.backend, prompts: judge.prompts, config, signal };
}

/** The judge could not answer (a model error, an endpoint down): the turn waits and is tried again. */
export class JudgeFailedError extends Error {
  override name = 'JudgeFailedError';
}

/** The `sample.judged` event of a turn: what it will train with, or why nothing. */
function emitJudged(ctx: TrainerContext, turnId: string, built: Awaited<ReturnType<typeof buildSamples>>): void {
  const sample = built.samples[0];
  const prm = [...ctx.store.judgements(turnId)].reverse().find((j) => j.kind === 'prm');
  const data = {
    turn_id: turnId,
    score: sample?.reward ?? prm?.score ?? null,
    score_source: sample?.rewardSource ?? (prm ? ('prm' as const) : null),
    votes: prm ? prm.votes.map((v) => v.score) : [],
    hint: sample?.hint ?? null,
    method: sample ? sample.kind : ('none' as const),
    reason: sample ? null : (built.hintDropped ?? 'no training signal: the judge was unsure (score 0) and found no hint'),
  };
  ctx.emit({ type: 'event', event: { event: 'sample.judged', data } });
}

/**
 * Judges a ready turn and stores its samples. Interrupted by `signal` (a command), it stores the
 * judge votes it already has and leaves the turn to be redone. A turn the judge can never read is
 * skipped with the reason; any other failure is thrown.
 */
export async function processTurn(ctx: TrainerContext, ready: ReadyTurn, signal: AbortSignal): Promise<void> {
  const { store } = ctx;
  const { turn, epoch, feedback } = ready;
  ctx.setState('judging');
  try {
    const built = await buildSamples(sampleContext(ctx, signal), {
      turn,
      feedback,
      judgements: store.judgements(turn.id),
      firstWithNextState: store.isFirstTurnWithNextState(turn),
    });
    const now = Date.now();
    for (const j of built.judgements) store.insertJudgement(turn.id, j, now);
    if (built.judgeFailed) ctx.log(`turn ${turn.id}: ${built.judgeFailed}`);
    if (signal.aborted) return; // the trainer is stopping; the turn is redone at the next start
    if (store.commitTurn(turn.id, epoch, built.samples, now)) emitJudged(ctx, turn.id, built);
    ctx.error = undefined;
  } catch (err) {
    if (signal.aborted) return;
    if (err instanceof JudgeInputError) {
      // It will never work for this turn: skip it (with the reason) rather than block the queue.
      store.skipTurn(turn.id, epoch, err.message);
      ctx.log(`skipped turn ${turn.id}: ${err.message}`);
      ctx.emit({ type: 'event', event: { event: 'sample.dropped', data: { turn_id: turn.id, reason: err.message } } });
      return;
    }
    throw new JudgeFailedError(`judging turn ${turn.id} failed: ${(err as Error).message}`);
  }
}

/**
 * The PRM of a turn whose reward came from feedback, recorded to measure judge agreement. A PRM
 * that can never read the turn is recorded with no score, so the turn is not asked about again.
 */
export async function logPrm(ctx: TrainerContext, turn: StoredTurn): Promise<void> {
  ctx.setState('judging');
  let prm;
  try {
    const built = await buildSamples(
      { ...sampleContext(ctx), config: { ...ctx.config, method: 'rl' } },
      { turn, feedback: null, judgements: [], firstWithNextState: false },
    );
    prm = built.judgements.find((j) => j.kind === 'prm');
  } catch (err) {
    if (!(err instanceof JudgeInputError)) throw err;
    prm = { kind: 'prm' as const, judge: ctx.judge.backend.description, votes: [{ raw: err.message, score: null }], score: null, hint: null };
  }
  if (prm) ctx.store.insertJudgement(turn.id, prm, Date.now());
}
