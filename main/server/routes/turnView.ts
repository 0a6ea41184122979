import type { Receipt, TurnView } from '../../protocol/sessions.js';
import type { AppQueries } from '../../store/appQueries.js';
import type { Feedback, Judgement, LearnStore, StoredSample } from '../../store/learnStore.js';
import type { StoredTurn } from '../../store/turnStore.js';
import type { ServerContext } from '../serverContext.js';

interface TurnFacts {
  turn: StoredTurn;
  feedback: Feedback | null;
  judgements: Judgement[];
  samples: StoredSample[];
  learnNote: string | null;
  learnState: 'new' | 'done' | 'skipped';
  /** `feedback_wait_s` in ms: how long a rating without a hint waits for one. */
  hintWaitMs: number;
  now: number;
}

const none = (stage: Receipt['stage'], reason: string | null = null): Receipt => ({
  stage,
  score: null,
  hint: null,
  hint_source: null,
  step: null,
  checkpoint_id: null,
  version: null,
  reason,
  hint_until: null,
  feedback_open: true,
});

/** Why a turn can never train, or null when it can. */
function untrainable(t: StoredTurn): string | null {
  if (t.type !== 'main') return 'side turns (tool planning, titles, summaries) are served but never trained on';
  if (!t.sessionId) return 'the request carried no session id (X-Session-Id), so nothing can follow it';
  if (t.finishReason === 'abort') return 'the answer was stopped before it finished';
  return null;
}

/**
 * Where a turn stands in the learning loop (see ReceiptSchema): derived from what is stored, so
 * a reload, the event stream and the Data screen always agree.
 */
export function receiptOf(f: TurnFacts, outcome: (step: number) => ReturnType<AppQueries['stepOutcome']>): Receipt {
  const why = untrainable(f.turn);
  if (why) return none('not_trained', why);
  const open = !f.samples.some((s) => s.status === 'training' || s.status === 'trained');
  if (f.learnState === 'new') {
    const signal = f.turn.nextState !== null || f.turn.closed || f.feedback !== null;
    return { ...none(signal ? 'queued' : 'none'), hint_until: hintUntil(f), feedback_open: open };
  }
  return { ...judgedReceipt(f, outcome), feedback_open: open, hint_until: judgeHintUntil(f) };
}

/** Until when a judge's hint waits for the user's review before it may train (queued samples only), or null. */
function judgeHintUntil(f: TurnFacts): number | null {
  const waiting = f.samples.find((s) => s.status === 'queued' && s.hintSource === 'judge');
  if (!waiting || f.hintWaitMs <= 0) return null;
  const until = waiting.createdAt + f.hintWaitMs;
  return until > f.now ? until : null;
}

/** Until when a rating without a hint waits for one, or null (no such rating, or the wait is over). */
function hintUntil(f: TurnFacts): number | null {
  const fb = f.feedback;
  if (!fb?.rating || fb.hint !== null || f.hintWaitMs <= 0) return null;
  const until = fb.updatedAt + f.hintWaitMs;
  return until > f.now ? until : null;
}

/** The receipt of a turn the trainer has judged: what it trains with, and how far it got. */
function judgedReceipt(f: TurnFacts, outcome: (step: number) => ReturnType<AppQueries['stepOutcome']>): Receipt {
  if (f.learnState === 'skipped' || !f.samples.length) {
    return none('not_trained', f.learnNote ?? 'no training signal: the judge was unsure (score 0) and found no hint');
  }
  const prm = f.judgements.filter((j) => j.kind === 'prm').at(-1);
  // A turn may have several samples (teacher rollouts), trained in different steps: the receipt
  // follows one whose step is live, if any.
  const trained = f.samples.filter((s) => s.status === 'trained' && s.step !== null);
  const lead = trained.find((s) => outcome(s.step!).live) ?? trained[0] ?? f.samples.find((s) => s.status !== 'dropped') ?? f.samples[0];
  const base = {
    ...none('judged'),
    score: lead.reward ?? prm?.score ?? null,
    hint: lead.hint,
    hint_source: lead.hint ? lead.hintSource : null,
  };
  if (lead.status === 'dropped') return { ...base, stage: 'not_trained', reason: lead.dropReason };
  if (lead.status !== 'trained' || lead.step === null) return base;
  const o = outcome(lead.step);
  return {
    ...base,
    stage: o.live ? 'live' : 'trained',
    step: lead.step,
    checkpoint_id: o.checkpointId,
    version: o.live ? o.liveVersion : null,
    first_version: o.firstVersion,
    reason: o.live ? null : notLiveReason(o),
  };
}

/** Why a trained step is not live: the gate's verdict, the gate still checking, or a rollback. */
function notLiveReason(o: ReturnType<AppQueries['stepOutcome']>): string {
  if (o.heldBack) return o.heldBack;
  if (o.checking) return 'the competence gate is checking this step before it goes live';
  return 'a rollback made an earlier version live, so what this step learned is not in the live adapter';
}

/** How long a rating without a hint waits for one (the trainer's `feedback_wait_s`, in ms; 0 without a trainer). */
export function hintWaitMs(ctx: ServerContext): number {
  return (ctx.trainer?.config.feedback_wait_s ?? 0) * 1000;
}

/** A turn as the API serves it: what was asked and answered, what followed, and what it taught. */
export function turnView(store: LearnStore, app: AppQueries, t: StoredTurn, hintWaitMs: number): TurnView {
  const facts: TurnFacts = {
    hintWaitMs,
    now: Date.now(),
    turn: t,
    feedback: store.feedback(t.id),
    judgements: store.judgements(t.id),
    samples: store.samplesOfTurn(t.id),
    learnNote: store.learnNote(t.id),
    learnState: app.learnState(t.id),
  };
  const fb = facts.feedback;
  return {
    id: t.id,
    type: t.type,
    session_id: t.sessionId,
    created_at: t.createdAt,
    completed_at: t.completedAt,
    adapter_version: t.adapterVersion,
    messages: t.requestMessages as TurnView['messages'],
    response: t.responseText,
    reasoning: t.reasoningText || null,
    tool_calls: t.toolCalls,
    finish_reason: t.finishReason,
    prompt_tokens: t.promptTokens,
    completion_tokens: t.completionTokens,
    next_state: t.nextState ? { role: t.nextState.role, text: t.nextState.text } : null,
    closed: t.closed,
    learn_note: facts.learnNote,
    feedback: fb ? { rating: fb.rating, hint: fb.hint, reject_judge_hint: fb.judgeHintRejected, updated_at: fb.updatedAt } : null,
    judgements: facts.judgements.map((j) => ({
      kind: j.kind,
      judge: j.judge,
      score: j.score,
      hint: j.hint,
      votes: j.votes,
      created_at: j.createdAt,
    })),
    samples: facts.samples.map((s) => ({
      kind: s.kind,
      reward: s.reward,
      reward_source: s.rewardSource,
      hint: s.hint,
      hint_source: s.hintSource,
      adapter_version: s.adapterVersion,
      status: s.status,
      drop_reason: s.dropReason,
      step: s.step,
      response: s.response?.writer ?? ('turn' as const),
    })),
    receipt: receiptOf(facts, (step) => app.stepOutcome(step)),
  };
}
