/**
 * `clawloop bench personalize`: does the agent learn a user's preferences by being talked to?
 *
 * Starts a real ClawLoop (fresh temporary data folder), measures the persona's score and the task
 * accuracy on held-out prompts, lets a scripted user with the persona's preferences talk to it
 * through the HTTP API exactly as OpenClaw would (the user's reply is the next state; the judges
 * are the served model itself, so no reward comes from the script), and measures again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BackendName } from '../engine/index.js';
import type { TrainingConfig, TrainMethod, TrainingConfigPatch, TrainingStatus } from '../protocol/training.js';
import { launchClawLoop, type Launched } from '../server/launch.js';
import { competenceQuestions, competenceSample, loadCompetenceSet } from '../tasks/competenceSet.js';
import { loadKnowledgeBase } from '../tasks/knowledgeBase.js';
import { BenchClient } from './benchClient.js';
import { Conversation } from './conversation.js';
import { funnelOf, type Channel, type Funnel, type TurnRecord } from './funnel.js';
import { measureCeiling, turnRecords } from './funnelProbe.js';
import { HeldOutEval, type EvalResult } from './heldOutEval.js';
import { liveDelay, type LiveDelay } from './liveDelay.js';
import type { Persona } from './persona.js';
import { heldOutTasks, SimulatedUser } from './simulatedUser.js';

/** Held-out prompts per measurement, unless asked for more (`--eval-prompts`; the minimum too). */
export const DEFAULT_EVAL_PROMPTS = 50;
/** Tokens per response, unless asked otherwise (`--max-tokens`). */
export const DEFAULT_MAX_TOKENS = 256;

export interface PersonalizeOptions {
  persona: Persona;
  method: TrainMethod;
  /** Main turns (model responses) the simulated user gets. */
  interactions: number;
  seed: number;
  modelDir: string;
  /** Held-out prompts per measurement (at least 50). */
  evalPrompts: number;
  /** Measure the score at the first session end after every this many interactions (0: only before and after). */
  curveEvery: number;
  /** Wait for the trainer to catch up before each message (a user's think time). Default true. */
  pace: boolean;
  /** Tokens per response. */
  maxTokens: number;
  /** How the simulated user gives feedback: its next message (implicit, default) or 👍/👎 and a typed hint (explicit). */
  channel?: Channel;
  /** Extra training settings (over the model's recommended ones). */
  trainingPatch?: TrainingConfigPatch;
  /** Competence prompts per curve point (before and after use the whole set). Default 60. */
  curveCompetencePrompts?: number;
  backend?: BackendName;
  /** Keep the data folder (its path is in the result). */
  keepData: boolean;
  log: (line: string) => void;
}

export interface PersonalizeResult {
  persona: string;
  method: TrainMethod;
  interactions: number;
  score_before: number;
  score_after: number;
  /** Accuracy on the model folder's competence set (greedy), before and after; see `accuracy_on`. */
  accuracy_before: number;
  accuracy_after: number;
  /** What the accuracy is measured on: "competence set (N prompts, greedy)" or, without a set, "the scored answers". */
  accuracy_on: string;
  /** Task accuracy of the answers the score was measured on (sampled), before and after. */
  answer_accuracy_before: number;
  answer_accuracy_after: number;
  /** Sessions until three satisfying responses in a row; null when it never happened. */
  sessions_to_3_in_a_row: number | null;
  wall_s: number;
  /**
   * CPU seconds the run's process used (all its threads: HTTP, inference, trainer). On a machine
   * shared with other work, wall time grows with the load and this does not.
   */
  cpu_s: number;
  curve: Array<[number, number]>;
  /** Accuracy on the first `curve_competence_prompts` of the competence set at each curve point. */
  accuracy_curve: Array<[number, number]>;
  curve_competence_prompts: number;
  /** The competence gate: on or off (and why), checkpoints held back, seconds per check. */
  gate: { on: boolean; detail: string; checked: number; held_back: number; check_s_mean: number | null; step_s_mean: number | null };
  sessions: number;
  /** Where the signal went: judge against the user's truth, hints, the hint ceiling, before and after. */
  funnel: Funnel;
  /** Every main turn behind the funnel: the user's truth, the PRM's score and the hint, in order. */
  funnel_turns: Array<TurnRecord & { sessionId: string }>;
  /** Seconds from a checkpoint's save to its serving (the competence gate is in between). */
  trained_to_live: LiveDelay;
  /** Share of the interactions whose response satisfied the persona, in order. */
  online: boolean[];
  training: { steps: number; adapter_version: number; config: Record<string, unknown> };
  timing: { load_s: number; eval_s: number; talk_s: number; wait_s: number };
  model: string;
  seed: number;
  eval_prompts: number;
  data_dir: string | null;
  eval_before: EvalResult['samples'];
  eval_after: EvalResult['samples'];
}

export async function runPersonalize(o: PersonalizeOptions): Promise<PersonalizeResult> {
  if (o.evalPrompts < DEFAULT_EVAL_PROMPTS) throw new Error(`--eval-prompts must be at least ${DEFAULT_EVAL_PROMPTS} (got ${o.evalPrompts})`);
  if (!(o.interactions >= 1)) throw new Error(`--interactions must be at least 1 (got ${o.interactions})`);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-bench-'));
  let launched: Launched | null = null;
  try {
    launched = await launchClawLoop({
      modelDir: o.modelDir,
      dataDir,
      backend: o.backend,
      // The simulated user sends a rating and its hint in one request: no wait for a hint.
      trainingPatch: { feedback_wait_s: 0, ...o.trainingPatch, method: o.method },
      options: { host: '127.0.0.1', port: 0, maxQueue: 256, maxBatch: 64, sessionIdleMs: 0 },
      log: (l) => (/warning|error|competence gate/i.test(l) ? o.log(l) : undefined),
    });
    const client = new BenchClient(launched.server.url.replace(/\/v1$/, ''));
    const config = await client.config();
    const loadS = (performance.now() - t0) / 1000;
    o.log(
      `bench: ${o.persona.name} · ${o.method} · ${o.interactions} interactions · seed ${o.seed} · model ${path.basename(o.modelDir)} · lr ${config.learning_rate}, batch ${config.batch_size}, LoRA r${config.lora_rank}`,
    );
    const m = measurements(o, client, config);
    const before = await m.held.measure('before', 'all');
    const talk = new Conversation(o, client, m.held, new SimulatedUser(o.persona, o.seed, m.kb, m.exclude), config.batch_size, before);
    await talk.run();
    const after = await m.held.measure('after', 'all');
    talk.curve.push([talk.interaction, after.score]);
    talk.accuracyCurve.push([talk.interaction, after.subsetAccuracy]);
    const status = await client.status();
    const gate = await gateSummary(client, status);
    const checkpoints = await client.checkpoints();
    const records = await turnRecords(client, talk.talked);
    // Last: measuring the base model's ceiling makes the base model live.
    const ceiling = await measureCeiling(client, o.persona, records, { maxTokens: o.maxTokens, withBase: true });
    const res = outcome(o, before, after, talk, m);
    return {
      ...res,
      funnel: funnelOf(o.channel ?? 'implicit', records, o.persona.rules, ceiling, res),
      funnel_turns: records.map(({ sessionId, ok, violated, prm, hint, hintTrained }) => ({ sessionId, ok, violated, prm, hint, hintTrained })),
      trained_to_live: liveDelay(checkpoints, launched.server.events.page(0, Number.MAX_SAFE_INTEGER)),
      wall_s: (performance.now() - t0) / 1000,
      cpu_s: cpuSeconds(cpu0),
      gate,
      training: { steps: status.step, adapter_version: status.adapter_version, config: { ...config } },
      timing: { load_s: loadS, eval_s: m.held.seconds, talk_s: talk.talkMs / 1000, wait_s: talk.waitMs / 1000 },
      data_dir: o.keepData ? dataDir : null,
    };
  } finally {
    await launched?.close({ abort: true }).catch(() => {});
    if (!o.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * What the run measures with: the persona's held-out prompts (the same for every measurement,
 * never asked in the conversation, in held-out phrasings), the model's competence set, and the
 * questions the simulated user must never ask (the competence set's).
 */
function measurements(o: PersonalizeOptions, client: BenchClient, config: TrainingConfig) {
  const kb = loadKnowledgeBase();
  const set = loadCompetenceSet(o.modelDir);
  const competence = set ? competenceSample(set, set.items.length) : [];
  const exclude = competenceQuestions(competence);
  const evalTasks = heldOutTasks(o.persona, o.seed, kb, o.evalPrompts, exclude);
  const subsetPrompts = Math.min(o.curveCompetencePrompts ?? 60, competence.length);
  const held = new HeldOutEval(
    client,
    o.persona,
    evalTasks,
    competence,
    { maxTokens: o.maxTokens, competenceMaxTokens: config.competence_max_tokens, subsetPrompts },
    o.log,
  );
  return { kb, competence, exclude, subsetPrompts, held };
}

/** The figures of a finished run that come from its measurements and its conversation. */
function outcome(o: PersonalizeOptions, before: EvalResult, after: EvalResult, talk: Conversation, m: ReturnType<typeof measurements>) {
  return {
    persona: o.persona.name,
    method: o.method,
    interactions: talk.interaction,
    score_before: before.score,
    score_after: after.score,
    accuracy_before: before.accuracy,
    accuracy_after: after.accuracy,
    accuracy_on: m.competence.length ? `competence set (${m.competence.length} prompts, greedy)` : 'the scored answers',
    answer_accuracy_before: answerAccuracy(before),
    answer_accuracy_after: answerAccuracy(after),
    sessions_to_3_in_a_row: talk.sessionsTo3,
    curve: talk.curve,
    accuracy_curve: talk.accuracyCurve,
    curve_competence_prompts: m.subsetPrompts,
    sessions: talk.sessions,
    online: talk.online,
    model: path.basename(o.modelDir),
    seed: o.seed,
    eval_prompts: o.evalPrompts,
    eval_before: before.samples,
    eval_after: after.samples,
  };
}

function answerAccuracy(e: EvalResult): number {
  return e.samples.filter((x) => x.correct).length / e.samples.length;
}

/** What the competence gate did during the run: its state, its verdicts, and a check's cost next to a step's. */
async function gateSummary(client: BenchClient, status: TrainingStatus): Promise<PersonalizeResult['gate']> {
  const checked = (await client.checkpoints()).filter((c) => c.competence);
  const steps = (await client.metrics()).filter((m) => !m.skipped && m.step_ms !== undefined);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  return {
    on: status.competence_gate?.on ?? false,
    detail: status.competence_gate?.detail ?? 'unknown',
    checked: checked.length,
    held_back: checked.filter((c) => c.competence!.held_back).length,
    check_s_mean: mean(checked.map((c) => c.competence!.seconds)),
    step_s_mean: mean(steps.map((m) => m.step_ms! / 1000)),
  };
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}
