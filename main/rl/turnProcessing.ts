import type { StoredTurn } from '../store/turnStore.js';
import type { ReadyTurn } from '../store/learnStore.js';
import { JudgeInputError } from './judge.js';
import { buildSamples, type SampleBuildContext } from './sampleBuilder.js';
import type { TrainerContext } from './trainerContext.js';

function sampleContext(ctx: TrainerContext, signal?: AbortSignal): SampleBuildContext {
  const { model, policy, judge, config } = ctx;
  return { model, policy: policy.adapter, judge: judge.backend, prompts: judge.prompts, config, signal };
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
    if (signal.aborted) return; // a command interrupted us; the turn is redone later
    store.commitTurn(turn.id, epoch, built.samples, now);
    ctx.error = undefined;
  } catch (err) {
    if (signal.aborted) return;
    if (err instanceof JudgeInputError) {
      // It will never work for this turn: skip it (with the reason) rather than block the queue.
      store.skipTurn(turn.id, epoch, err.message);
      ctx.log(`skipped turn ${turn.id}: ${err.message}`);
      return;
    }
    throw new Error(`judging turn ${turn.id} failed: ${(err as Error).message}`);
  }
}

/** The PRM of a turn whose reward came from feedback, recorded to measure judge agreement. */
export async function logPrm(ctx: TrainerContext, turn: StoredTurn): Promise<void> {
  ctx.setState('judging');
  const built = await buildSamples(
    { ...sampleContext(ctx), config: { ...ctx.config, method: 'rl' } },
    { turn, feedback: null, judgements: [], firstWithNextState: false },
  );
  const prm = built.judgements.find((j) => j.kind === 'prm');
  if (prm) ctx.store.insertJudgement(turn.id, prm, Date.now());
}
