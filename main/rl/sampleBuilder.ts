import { type ChatMessage, toChatMessages, toToolSpecs, withHint } from '../engine/text/index.js';
import { generateText, type LoraAdapter, type Model, scoreResponses } from '../engine/index.js';
import type { WireMessage, WireTool } from '../protocol/openai.js';
import { effectiveVotes, type TrainingConfig } from '../protocol/training.js';
import type { Feedback, Judgement, NewSample } from '../store/learnStore.js';
import type { StoredTurn } from '../store/turnStore.js';
import { JudgeInputError, runHintJudge, runPrmJudge, type JudgeBackend, type JudgeRunOptions } from './judge.js';
import { droppedHintReason, explains } from './hintExplains.js';
import { hintCandidates, topKOverlap } from './judgeParsing.js';
import type { JudgeCase, JudgePrompts } from './judgePrompts.js';
import { judgeView } from './judgeView.js';

/** What turning a turn into samples needs. */
export interface SampleBuildContext {
  /** The base model (the trainer's copy). */
  model: Model;
  /** The policy being trained, for the 'policy' teacher and the overlap-guided hint selection. */
  policy: LoraAdapter | null;
  /** The adapter version of `policy`: a policy rollout's π_old is this version's. */
  policyVersion: number;
  judge: JudgeBackend;
  prompts: JudgePrompts;
  config: TrainingConfig;
  signal?: AbortSignal;
}

export interface TurnEvidence {
  turn: StoredTurn;
  feedback: Feedback | null;
  /** Judge results recorded earlier for this turn (reused when feedback changes). */
  judgements: Judgement[];
  /** The turn is the first of its session with a next state (the at-least-one rule). */
  firstWithNextState: boolean;
}

export interface BuiltSamples {
  samples: NewSample[];
  /** New judge results to record. */
  judgements: Array<Omit<Judgement, 'createdAt'>>;
  /** Why a judge's hint does not train (hint_min_gap, or too long for the teacher), when it does not. */
  hintDropped?: string;
  /** Set when the hint was dropped because the teacher cannot read it with the turn: an error to report. */
  hintUnreadable?: boolean;
  /** A judge that failed on a turn with explicit feedback, which then trained without it (why). */
  judgeFailed?: string;
}

/** The chat-template inputs a stored turn was rendered from. */
function templateInputs(turn: StoredTurn): {
  messages: ChatMessage[];
  tools: ReturnType<typeof toToolSpecs> | undefined;
  extra: Record<string, unknown>;
} {
  const messages = toChatMessages(turn.requestMessages as WireMessage[]);
  const p = turn.params as { tools_in_prompt?: boolean; template_vars?: Record<string, unknown> };
  const inPrompt = p.tools_in_prompt ?? true;
  const tools = inPrompt && turn.tools?.length ? toToolSpecs(turn.tools as WireTool[]) : undefined;
  return { messages, tools, extra: p.template_vars ?? {} };
}

/** Token ids of the teacher context: the turn's messages with the hint appended to the last user message. */
export function teacherPromptIds(model: Model, turn: StoredTurn, hint: string): number[] {
  const { messages, tools, extra } = templateInputs(turn);
  return model.encodeChat({ messages: withHint(messages, hint), tools, addGenerationPrompt: true, extra }).ids;
}

/**
 * A deterministic seed per turn and purpose, so judgements are reproducible. It hashes what the
 * judge reads (the exact tokens and the next state), not the turn's random id: the same
 * conversation replayed (a benchmark with the same seed) is judged with the same votes.
 */
export function judgeSeed(turn: StoredTurn, salt: number): number {
  let h = 2166136261 ^ salt;
  const mix = (x: number) => (h = Math.imul(h ^ x, 16777619));
  for (const id of turn.promptIds) mix(id);
  mix(-1);
  for (const id of turn.responseIds) mix(id);
  const ns = turn.nextState ? `${turn.nextState.role}\n${turn.nextState.text}` : '';
  for (let i = 0; i < ns.length; i++) mix(ns.charCodeAt(i));
  return h >>> 0;
}

/** What the judges of one turn share: the judge case (null without a next state) and how to run votes. */
interface JudgeRun {
  ctx: SampleBuildContext;
  ev: TurnEvidence;
  jcase: JudgeCase | null;
  /** Vote settings; `salt` keeps the PRM's and the hint judge's seeds apart. */
  opts: (salt: number) => JudgeRunOptions;
  /** New judge results, appended as the judges run. */
  judgements: BuiltSamples['judgements'];
  /** Set when a judge failed on a turn with explicit feedback (see {@link besideFeedback}). */
  judgeFailed?: string;
}

/**
 * Runs a judge. On a turn with explicit feedback (👍/👎 or a typed hint) the feedback does not
 * depend on the judge's reading (issue 38): a judge that fails there, because it cannot read the
 * turn or because its model is down, leaves the feedback to train alone, and null is returned;
 * the failure is kept in `judgeFailed`. A PRM that can never read the turn is recorded with no
 * score, so it is not asked again for the record. Without feedback the failure is thrown, as
 * the turn has nothing else to train with.
 */
async function besideFeedback<T>(run: JudgeRun, kind: 'prm' | 'hint', judge: () => Promise<T>): Promise<T | null> {
  if (!run.ev.feedback) return judge();
  try {
    return await judge();
  } catch (err) {
    if (run.ctx.signal?.aborted) throw err;
    const why = (err as Error).message;
    run.judgeFailed = `the ${kind === 'prm' ? 'PRM' : 'hint judge'} failed (${why}); the turn's feedback trains without it`;
    if (kind === 'prm' && err instanceof JudgeInputError)
      run.judgements.push({ kind: 'prm', judge: run.ctx.judge.description, votes: [{ raw: why, score: null }], score: null, hint: null });
    return null;
  }
}

/**
 * Turns one main turn into its samples (docs/learning-loop.md §2–3):
 * - RL part: reward ±1 from 👍/👎, else the PRM's majority score; a 0 is kept (reward 0) only for the
 *   first turn of a session with a next state (the at-least-one rule).
 * - OPD part: a typed hint, else the hint judge's selected hint; the teacher's log-probs of the
 *   same response ids under the hint-augmented prompt; with `policy_rollouts`, also that many
 *   OPD samples on answers the policy writes again.
 * The PRM also runs when feedback overrides it, so judge agreement can be measured.
 */
export async function buildSamples(ctx: SampleBuildContext, ev: TurnEvidence): Promise<BuiltSamples> {
  const { turn } = ev;
  const cfg = ctx.config;
  const run: JudgeRun = {
    ctx,
    ev,
    jcase: judgeView(turn),
    opts: (salt) => ({
      votes: effectiveVotes(cfg),
      temperature: cfg.judge_temperature,
      maxTokens: cfg.judge_max_tokens,
      seed: judgeSeed(turn, salt),
      signal: ctx.signal,
    }),
    judgements: [],
  };
  const { reward, rewardSource } = cfg.method === 'rl' || cfg.method === 'combine' ? await evaluativeSignal(run) : NO_REWARD;
  const directive = cfg.method === 'opd' || cfg.method === 'combine' ? await directiveSignal(run) : NO_HINT;
  const { judgements, judgeFailed } = run;
  if (reward === null && directive.hint === null) return { samples: [], judgements, judgeFailed };
  // A hint the teacher cannot read with the turn (too long for the model) trains nothing; the reward still does.
  const overflow = directive.hint !== null ? hintOverflow(ctx.model, turn, directive.hint) : null;
  const scored = directive.hint !== null && !overflow ? await teacherScores(ctx, turn, turn.responseIds, directive.hint) : null;
  // A judge's hint that does not explain the complaint trains nothing (hint_min_gap); the judge's record keeps it.
  const hintDropped =
    overflow ?? (scored && droppedHintReason(cfg, directive.hintSource, scored.logprobs, turn.responseLogprobs)) ?? undefined;
  const { hint, hintSource } = hintDropped ? NO_HINT : directive;
  const teacher = hintDropped ? null : scored;
  const hintUnreadable = overflow !== null || undefined;
  if (reward === null && hint === null) return { samples: [], judgements, hintDropped, hintUnreadable, judgeFailed };
  const kind = reward !== null && hint !== null ? 'both' : reward !== null ? 'rl' : 'opd';
  const own: NewSample = {
    kind,
    reward,
    rewardSource,
    hint,
    hintSource,
    ...teacherFields(cfg, teacher),
    adapterVersion: turn.adapterVersion,
  };
  const rollouts =
    cfg.policy_rollouts > 0 && hint !== null && explains(cfg, hintSource, teacher!.logprobs, turn.responseLogprobs)
      ? await rolloutSamples(ctx, turn, hint, hintSource, cfg.policy_rollouts)
      : [];
  return { judgements, samples: [own, ...rollouts], hintDropped, hintUnreadable, judgeFailed };
}

type TeacherScores = Awaited<ReturnType<typeof teacherScores>>;

/** A sample's teacher fields from the teacher's scores of its response (all null without a hint). */
function teacherFields(cfg: TrainingConfig, teacher: TeacherScores | null) {
  return {
    teacherLogprobs: teacher?.logprobs ?? null,
    teacherTopIds: teacher?.topIds ?? null,
    teacherTopLogprobs: teacher?.topLogprobs ?? null,
    topK: teacher?.topIds ? cfg.opd_top_k : null,
  };
}

/** The adapter the OPD teacher reads with: the policy (self-distillation) or none (the base model). */
const teacherAdapter = (ctx: SampleBuildContext) => (ctx.config.teacher === 'policy' ? ctx.policy : null);

/**
 * Answers the policy writes again for a hinted turn (`policy_rollouts`: the turn's own prompt,
 * sampled with the model's defaults and a seed drawn from the turn), each an OPD sample on its own
 * tokens scored by the hinted teacher: more of its own answers judged under the same hint, so the
 * styles it would fall back to are pushed as well as the one it served. Generation records each
 * sampled token's log-prob under the full distribution, as serving records a turn's: that is π_old.
 */
async function rolloutSamples(
  ctx: SampleBuildContext,
  turn: StoredTurn,
  hint: string,
  hintSource: NewSample['hintSource'],
  count: number,
): Promise<NewSample[]> {
  const { model, config: cfg } = ctx;
  const g = model.generation;
  const out: NewSample[] = [];
  for (let k = 0; k < count; k++) {
    const answer = await generateText(model.lm, model.tokenizer, turn.promptIds, {
      maxNewTokens: Math.max(128, 2 * turn.responseIds.length),
      temperature: g.temperature ?? 1,
      topP: g.topP ?? 1,
      topK: g.topK ?? 0,
      seed: judgeSeed(turn, 11 + k),
      stopTokenIds: g.eosTokenIds,
      adapter: ctx.policy,
      signal: ctx.signal,
    });
    if (ctx.signal?.aborted) return [];
    if (!answer.tokens.length) continue;
    const teacher = await teacherScores(ctx, turn, answer.tokens, hint);
    out.push({
      kind: 'opd',
      reward: null,
      rewardSource: null,
      hint,
      hintSource,
      ...teacherFields(cfg, teacher),
      adapterVersion: ctx.policyVersion,
      response: { ids: answer.tokens, logprobs: answer.logprobs, writer: 'policy' },
    });
  }
  return out;
}

const NO_REWARD = { reward: null, rewardSource: null } as const;
const NO_HINT = { hint: null, hintSource: null } as const;

/** The evaluative signal: 👍/👎, else the PRM's ±1, else its 0 by the at-least-one rule, else none. */
async function evaluativeSignal(run: JudgeRun): Promise<{ reward: number | null; rewardSource: NewSample['rewardSource'] }> {
  const { ctx, ev, jcase } = run;
  let prm = ev.judgements.find((j) => j.kind === 'prm')?.score ?? null;
  if (jcase && !ev.judgements.some((j) => j.kind === 'prm')) {
    const r = await besideFeedback(run, 'prm', () => runPrmJudge(ctx.judge, ctx.prompts, jcase, run.opts(1)));
    if (r) run.judgements.push({ kind: 'prm', judge: ctx.judge.description, votes: r.votes, score: r.score, hint: null });
    prm = r?.score ?? null;
  }
  if (ev.feedback?.rating) return { reward: ev.feedback.rating === 'up' ? 1 : -1, rewardSource: 'feedback' };
  if (prm === 1 || prm === -1) return { reward: prm, rewardSource: 'prm' };
  // The at-least-one rule keeps a turn the PRM was unsure of, not one it could not judge.
  if (prm === 0 && jcase && ev.firstWithNextState) return { reward: 0, rewardSource: 'at_least_one' };
  return NO_REWARD;
}

/** The directive signal: a typed hint, else the hint judge's (recorded earlier, or asked now), else none. */
async function directiveSignal(run: JudgeRun): Promise<{ hint: string | null; hintSource: NewSample['hintSource'] }> {
  const { ctx, ev, jcase } = run;
  if (ev.feedback?.hint) return { hint: ev.feedback.hint, hintSource: 'feedback' };
  if (!jcase || ev.feedback?.judgeHintRejected) return NO_HINT; // the user rejected the judge's hint
  let hint: string | null;
  const earlier = ev.judgements.find((j) => j.kind === 'hint');
  if (earlier) hint = earlier.hint;
  else {
    const r = await besideFeedback(run, 'hint', () => runHintJudge(ctx.judge, ctx.prompts, jcase, run.opts(2)));
    if (!r) return NO_HINT;
    hint = ctx.config.hint_selection === 'overlap' ? await selectByOverlap(ctx, ev.turn, hintCandidates(r.votes)) : r.hint;
    run.judgements.push({ kind: 'hint', judge: ctx.judge.description, votes: r.votes, score: null, hint });
  }
  return { hint, hintSource: hint ? 'judge' : null };
}

/**
 * Why the teacher cannot read the turn's answer after the hint-augmented prompt (more tokens than
 * the model's context), or null when it fits.
 */
export function hintOverflow(model: Model, turn: StoredTurn, hint: string): string | null {
  const tokens = teacherPromptIds(model, turn, hint).length + turn.responseIds.length - 1;
  const max = model.lm.config.maxPositions;
  if (tokens <= max) return null;
  return `the hint (${hint.length} characters) makes the teacher's context ${tokens} tokens with this turn; the model reads at most ${max}: it trains nothing (a shorter hint would)`;
}

/** The teacher's log-probs of response ids after the turn's hint-augmented prompt (teacher forcing). */
async function teacherScores(ctx: SampleBuildContext, turn: StoredTurn, responseIds: number[], hint: string) {
  const topK = ctx.config.opd_loss === 'topk_reverse_kl' ? ctx.config.opd_top_k : 0;
  const promptIds = teacherPromptIds(ctx.model, turn, hint);
  const [s] = await scoreResponses(ctx.model.lm, [{ promptIds, responseIds }], { adapter: teacherAdapter(ctx), topK, signal: ctx.signal });
  return {
    logprobs: Array.from(s.logprobs),
    topIds: topK ? s.top!.flatMap((row) => row.map((e) => e.id)) : null,
    topLogprobs: topK ? s.top!.flatMap((row) => row.map((e) => e.logprob)) : null,
  };
}

/**
 * Overlap-guided hint selection (paper v2): the candidate whose teacher context agrees most with
 * the student, counted as teacher top-4 tokens found in the student's top-4 over response positions.
 */
async function selectByOverlap(ctx: SampleBuildContext, turn: StoredTurn, candidates: string[]): Promise<string | null> {
  candidates = candidates.filter((h) => hintOverflow(ctx.model, turn, h) === null);
  if (candidates.length <= 1) return candidates[0] ?? null;
  const [student] = await scoreResponses(ctx.model.lm, [{ promptIds: turn.promptIds, responseIds: turn.responseIds }], {
    adapter: ctx.policy,
    topK: 4,
    signal: ctx.signal,
  });
  const studentTop = student.top!.map((row) => row.map((e) => e.id));
  const teachers = await scoreResponses(
    ctx.model.lm,
    candidates.map((h) => ({ promptIds: teacherPromptIds(ctx.model, turn, h), responseIds: turn.responseIds })),
    { adapter: teacherAdapter(ctx), topK: 4, signal: ctx.signal },
  );
  let best = 0;
  let bestScore = -1;
  teachers.forEach((t, i) => {
    const score = topKOverlap(
      t.top!.map((row) => row.map((e) => e.id)),
      studentTop,
    );
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  return candidates[best];
}
