import type { StoredTurn } from '../store/turnStore.js';
import type { ReadyTurn } from '../store/learnStore.js';
import { ChatRequestError } from '../engine/index.js';
import { JudgeInputError, JudgeUnavailableError } from './judge.js';
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
    const note = built.samples.length ? null : (built.hintDropped ?? null);
    if (store.commitTurn(turn.id, epoch, built.samples, now, note)) emitJudged(ctx, turn.id, built);
    if (built.hintUnreadable) reportError(ctx, `turn ${turn.id}: ${built.hintDropped}`);
    ctx.clearError();
    failedTurns.delete(ctx);
  } catch (err) {
    if (signal.aborted) return;
    const failures = countFailure(ctx, turn.id);
    const why = unreadableReason(err) ?? (failures >= MAX_JUDGE_ATTEMPTS ? repeatedFailureReason(err, failures) : null);
    if (why === null) throw new JudgeFailedError(`judging turn ${turn.id} failed: ${(err as Error).message}`);
    // It will never work for this turn: skip it (with the reason) rather than block the queue.
    failedTurns.delete(ctx);
    store.skipTurn(turn.id, epoch, why);
    ctx.log(`skipped turn ${turn.id}: ${why}`);
    ctx.emit({ type: 'event', event: { event: 'sample.dropped', data: { turn_id: turn.id, reason: why } } });
    reportError(ctx, `skipped turn ${turn.id}: ${why}`);
  }
}

/** An `error` event from the judge: shown in the app, while the trainer carries on. */
function reportError(ctx: TrainerContext, message: string): void {
  ctx.emit({ type: 'event', event: { event: 'error', data: { where: 'judge', message } } });
}

/**
 * Attempts a turn gets when judging it fails with an error that may be passing (about 5 s apart):
 * after that many the turn is skipped, so one turn can never hold the queue for ever. An
 * unreachable or busy judge endpoint does not count: every turn would fail the same way.
 */
export const MAX_JUDGE_ATTEMPTS = 3;

/** The turn whose judging failed last, and how many times in a row, per trainer. */
const failedTurns = new WeakMap<TrainerContext, { turnId: string; failures: number }>();

function countFailure(ctx: TrainerContext, turnId: string): number {
  const last = failedTurns.get(ctx);
  const failures = last?.turnId === turnId ? last.failures + 1 : 1;
  failedTurns.set(ctx, { turnId, failures });
  return failures;
}

/** Why the judge or the teacher can never read this input, or null when the error may pass. */
function unreadableReason(err: unknown): string | null {
  if (err instanceof JudgeInputError) return err.message;
  // The engine's own checks (a sequence longer than the model's context, an empty prompt) fail the
  // same way every time.
  if (err instanceof RangeError || (err as Error).name === 'ContextLengthError')
    return `the model cannot read this turn: ${(err as Error).message}`;
  if (err instanceof ChatRequestError && err.status === 400) return `the judge cannot read this turn: ${err.message}`;
  return null;
}

function repeatedFailureReason(err: unknown, failures: number): string | null {
  if (err instanceof JudgeUnavailableError) return null;
  return `judging failed ${failures} times in a row: ${(err as Error).message}`;
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
    prm = {
      kind: 'prm' as const,
      judge: ctx.judge.backend.description,
      votes: [{ raw: err.message, score: null }],
      score: null,
      hint: null,
    };
  }
  if (prm) ctx.store.insertJudgement(turn.id, prm, Date.now());
}
