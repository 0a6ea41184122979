import fs from 'node:fs';
import path from 'node:path';
import { parseBackendName } from '../engine/index.js';
import { CHANNELS, type Channel } from '../personalize/funnel.js';
import { funnelLines } from '../personalize/funnelReport.js';
import { loadPersona, PersonaError, shippedPersonas } from '../personalize/persona.js';
import {
  DEFAULT_EVAL_PROMPTS,
  DEFAULT_MAX_TOKENS,
  runPersonalize,
  type PersonalizeOptions,
  type PersonalizeResult,
} from '../personalize/personalize.js';
import { renderLineChart } from '../personalize/pngChart.js';
import { TRAIN_METHODS, type TrainMethod, type TrainingConfigPatch } from '../protocol/training.js';
import { numberFlag, parse, required, UsageError } from './args.js';
import type { Io } from './io.js';
import { resolveModelDir } from './modelDir.js';

export const BENCH_USAGE = `Usage: clawloop bench personalize --persona FILE|NAME --method off|rl|opd|combine --interactions N [options]

Starts its own ClawLoop (fresh temporary data folder) and lets a scripted user with a persona's
preferences talk to it through the HTTP API, as OpenClaw would: the user's reply is the next state,
and the judges are the served model itself. Reports the persona's score (share of responses on
held-out prompts that satisfy every rule) and the task accuracy before and after, the sessions it
took to get three satisfying responses in a row, and the wall time.

  --persona FILE|NAME   a persona JSON file, or a shipped one: ${shippedPersonas().join(', ') || '(none found)'};
                        blind/NAME for one of the held-out blind set (never tune on it)
  --method M            ${TRAIN_METHODS.join(' | ')}
  --interactions N      model responses the user gets (main turns)
  --seed S              seeds the questions, replies and sampling (default 1)
  --channel C           how the user gives feedback: implicit (its next message, which the judges
                        read; default) or explicit (👍/👎 and, on 👎, its complaint typed as a hint
                        through POST /v1/feedback, as in the app)
  --json OUT            write the result as JSON
  --plot OUT.png        plot the score against interactions
  --model DIR           the model (default: the bundled clawloop-mini)
  --eval-prompts N      held-out prompts per measurement (default 50, at least 50)
  --curve-every K       also measure after every K interactions (default 6; 0: only before and after)
  --no-pace             send each message at once instead of letting the trainer catch up first
  --max-tokens N        tokens per response (default 256)
  --lr X, --batch-size N, --lora-rank N   training settings over the model's recommended ones
  --set KEY=VALUE       any other training setting (repeatable), e.g. --set kl_coef=0.05
  --keep-data           keep the temporary data folder (printed at the end)
  --backend NAME        native (default where the addon loads), wasm, cpu, webgpu or tensorflow`;

/**
 * Plots one or more runs: the persona's score (solid) and the accuracy on the competence set
 * (dashed, same colour) against interactions.
 */
export function plotRuns(runs: PersonalizeResult[], file: string, title?: string): void {
  const palette: Array<[number, number, number]> = [
    [214, 39, 40],
    [31, 119, 180],
    [44, 160, 44],
    [148, 103, 189],
    [255, 127, 14],
    [140, 86, 75],
  ];
  const samePersona = runs.every((x) => x.persona === runs[0].persona);
  const png = renderLineChart({
    title: title ?? (runs.length === 1 ? `${runs[0].persona}: ${runs[0].method}` : 'personalization'),
    xLabel: 'interactions',
    yLabel: 'score (solid), accuracy (dashed)',
    yRange: [0, 1],
    series: runs.flatMap((r, i) => {
      const name = samePersona ? r.method : `${r.persona} ${r.method}`;
      const color = palette[i % palette.length];
      return [
        { label: `${name} score`, points: r.curve, color, dashed: false },
        ...(r.accuracy_curve ? [{ label: `${name} accuracy`, points: r.accuracy_curve, color, dashed: true }] : []),
      ];
    }),
    hLines: [{ y: 0.85, label: 'target 0.85', color: [120, 120, 120] }],
  });
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, png);
}

const BENCH_FLAGS = {
  persona: { type: 'string' },
  method: { type: 'string' },
  interactions: { type: 'string' },
  seed: { type: 'string' },
  channel: { type: 'string' },
  json: { type: 'string' },
  plot: { type: 'string' },
  model: { type: 'string' },
  'eval-prompts': { type: 'string' },
  'curve-every': { type: 'string' },
  'no-pace': { type: 'boolean', default: false },
  'max-tokens': { type: 'string' },
  lr: { type: 'string' },
  'batch-size': { type: 'string' },
  'lora-rank': { type: 'string' },
  set: { type: 'string', multiple: true },
  'keep-data': { type: 'boolean', default: false },
  backend: { type: 'string' },
} as const;

type BenchFlags = ReturnType<typeof parse<typeof BENCH_FLAGS>>['values'];

export async function benchCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'personalize')
    throw new UsageError(sub ? `unknown benchmark '${sub}'; available: personalize` : 'name a benchmark: personalize');
  const { values } = parse(rest, BENCH_FLAGS);
  const result = await runPersonalize(personalizeOptions(values, io));
  io.out(summary(result));
  if (values.json) {
    fs.mkdirSync(path.dirname(path.resolve(values.json)), { recursive: true });
    fs.writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
  }
  if (values.plot) plotRuns([result], values.plot);
  return 0;
}

/** The benchmark run the flags describe; every flag is checked here, before anything starts. */
function personalizeOptions(values: BenchFlags, io: Io): PersonalizeOptions {
  const method = required(values.method, '--method') as TrainMethod;
  if (!TRAIN_METHODS.includes(method)) throw new UsageError(`--method must be one of ${TRAIN_METHODS.join(', ')}; got '${method}'`);
  let persona;
  try {
    persona = loadPersona(required(values.persona, '--persona'));
  } catch (err) {
    if (err instanceof PersonaError) throw new UsageError(err.message);
    throw err;
  }
  if (persona.unknownFields.length)
    io.log(`clawloop bench: note: ${persona.file} has fields ClawLoop does not use: ${persona.unknownFields.join(', ')}`);
  const trainingPatch = trainingPatchOf(values);
  const channel = (values.channel ?? 'implicit') as Channel;
  if (!CHANNELS.includes(channel)) throw new UsageError(`--channel must be one of ${CHANNELS.join(', ')}; got '${values.channel}'`);
  const interactions = numberFlag(required(values.interactions, '--interactions'), '--interactions', {
    min: 1,
    max: 10_000,
    integer: true,
  })!;
  return {
    persona,
    method,
    channel,
    interactions,
    evalPrompts:
      numberFlag(values['eval-prompts'], '--eval-prompts', { min: DEFAULT_EVAL_PROMPTS, max: 10_000, integer: true }) ??
      DEFAULT_EVAL_PROMPTS,
    curveEvery: numberFlag(values['curve-every'], '--curve-every', { min: 0, integer: true }) ?? 6,
    maxTokens: numberFlag(values['max-tokens'], '--max-tokens', { min: 8, max: 8192, integer: true }) ?? DEFAULT_MAX_TOKENS,
    seed: numberFlag(values.seed, '--seed', { integer: true }) ?? 1,
    backend: values.backend ? parseBackendName(values.backend) : undefined,
    modelDir: resolveModelDir(values.model),
    pace: !values['no-pace'],
    trainingPatch,
    keepData: values['keep-data'] ?? false,
    log: io.log,
  };
}

/** --lr, --batch-size, --lora-rank and every --set KEY=VALUE as a training configuration patch. */
function trainingPatchOf(values: BenchFlags): TrainingConfigPatch {
  const patch: TrainingConfigPatch = {};
  const lr = numberFlag(values.lr, '--lr', { min: 0 });
  if (lr !== undefined) patch.learning_rate = lr;
  const bs = numberFlag(values['batch-size'], '--batch-size', { min: 1, integer: true });
  if (bs !== undefined) patch.batch_size = bs;
  const rank = numberFlag(values['lora-rank'], '--lora-rank', { min: 1, integer: true });
  if (rank !== undefined) patch.lora_rank = rank;
  for (const kv of values.set ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set takes KEY=VALUE (a training setting, e.g. --set w_rl=0.5); got '${kv}'`);
    const raw = kv.slice(eq + 1);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw; // a bare word, e.g. --set teacher=policy
    }
    (patch as Record<string, unknown>)[kv.slice(0, eq)] = value;
  }
  return patch;
}

/** The result as a few lines for a person. */
function summary(result: PersonalizeResult): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  return (
    [
      `persona ${result.persona}, method ${result.method}, ${result.interactions} interactions in ${result.sessions} sessions`,
      `  personalization score  ${result.score_before.toFixed(2)} -> ${result.score_after.toFixed(2)}`,
      `  accuracy               ${pct(result.accuracy_before)} -> ${pct(result.accuracy_after)} (${result.accuracy_on})`,
      `  competence gate        ${result.gate.on ? `on: ${result.gate.checked} checked, ${result.gate.held_back} held back, ${result.gate.check_s_mean?.toFixed(1) ?? '-'} s per check (a step: ${result.gate.step_s_mean?.toFixed(1) ?? '-'} s)` : result.gate.detail}`,
      `  3 satisfying in a row  ${result.sessions_to_3_in_a_row === null ? 'never' : `after ${result.sessions_to_3_in_a_row} sessions`}`,
      ...funnelLines(result),
      `  training               ${result.training.steps} steps, adapter v${result.training.adapter_version}`,
      `  wall time              ${(result.wall_s / 60).toFixed(1)} min, ${(result.cpu_s / 60).toFixed(1)} CPU-min (load ${result.timing.load_s.toFixed(0)} s, measuring ${result.timing.eval_s.toFixed(0)} s, talking ${result.timing.talk_s.toFixed(0)} s, waiting for the trainer ${result.timing.wait_s.toFixed(0)} s)`,
      `  score curve            ${result.curve.map(([x, y]) => `${x}:${y.toFixed(2)}`).join(' ')}`,
      `  accuracy curve         ${result.accuracy_curve.map(([x, y]) => `${x}:${y.toFixed(2)}`).join(' ')} (${result.curve_competence_prompts} prompts)`,
      ...(result.data_dir ? [`  data folder            ${result.data_dir}`] : []),
    ].join('\n') + '\n'
  );
}
