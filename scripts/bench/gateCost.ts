/**
 * `npm run bench:gate-cost [-- --model DIR --reps N]`: what a competence-gate check costs next to
 * the training step that made the candidate, alone on this machine (docs/learning-loop.md, "What a
 * check costs"). The personalization benchmark reports both as they happen, two runs sharing the
 * cores; this splits the check into its parts.
 *
 * The live policy is the base model; its greedy answers to the gate's sample are decoded first. The
 * candidate is a LoRA adapter after one step of the learning loop's shape (the model's recommended
 * settings: 4 samples, `ppo_epochs` passes, the KL to the base), its samples being four of those
 * answers with advantage +1. Then the check, exactly as the gate runs it (CompetenceGate.measure
 * against the live answers), and its parts apart: merging the adapter into a copy of the weights,
 * the teacher-forced pass that reads every live answer under the candidate, and what is left, the
 * decoding of the answers that changed on from where they part; for comparison, the decoding of
 * those answers whole from their prompts (checks before they reused the pass's keys and values
 * prefilled the prompt and the shared tokens, then decoded the rest), and the pass and that decoding
 * through the LoRA path, as serving applies the adapter (and as checks did before they merged).
 * Last, the floor of an exact check: the pass's products with the weights in GFLOP (next to an
 * estimate of the step's), and the time they would take at this machine's rate for a large
 * matrix product. Each figure is the median of `--reps` runs. The
 * step's samples are competence answers, about as long as a persona's questions and answers; the
 * loop's real steps are in the personalization benchmark's "Check / step" column.
 */
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { greedyTokens, Model, policyGradientStep, scoreResponses, type TrainBatch } from '../../main/engine/index.js';
import { projectionDims, type ModelConfig } from '../../main/engine/model/config.js';
import { greedyAnswers } from '../../main/rl/competenceAnswers.js';
import { CompetenceGate } from '../../main/rl/gate/competenceGate.js';
import { LivePolicy } from '../../main/rl/livePolicy.js';
import { effectiveKlCoef } from '../../main/protocol/training.js';
import { modelTrainingDefaults } from '../../main/rl/trainingConfig.js';
import { defaultModelDir } from '../../main/resources.js';
import { competenceSample } from '../../main/tasks/competenceSet.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run bench:gate-cost -- [--model DIR] [--reps N]

What a competence-gate check costs next to the training step that made the candidate, in parts.`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; s: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, s: (performance.now() - t0) / 1000 };
}

/** The batch of one learning-loop step: prompt tokens masked out, answer tokens pushed up (advantage +1). */
async function stepBatch(model: Model, prompts: number[][], answers: number[][]): Promise<TrainBatch> {
  const items = prompts.map((p, i) => ({ promptIds: p, responseIds: answers[i] }));
  const scored = await scoreResponses(model.lm, items, {});
  const perToken = (i: number, fill: (j: number) => number) => [...prompts[i].map(() => 0), ...answers[i].map((_, j) => fill(j))];
  return {
    ids: prompts.map((p, i) => [...p, ...answers[i]]),
    mask: prompts.map((_, i) => perToken(i, () => 1)),
    weights: prompts.map((_, i) => perToken(i, () => 1)),
    extra: {
      old: prompts.map((_, i) => perToken(i, (j) => scored[i].logprobs[j])),
      ref: prompts.map((_, i) => perToken(i, (j) => scored[i].logprobs[j])),
    },
  };
}

/** Floating-point operations of one token's products with the weights: through the projections, and through the output head. */
function weightFlops(c: ModelConfig): { projections: number; head: number } {
  const perLayer = Object.values(projectionDims(c)).reduce((n, [o, i]) => n + o * i, 0);
  return { projections: 2 * c.numLayers * perLayer, head: 2 * c.vocabSize * c.hiddenSize };
}

/** This machine's rate for a large float32 matrix product (1024³, the median of 9), in FLOP per second. */
function matmulPeak(): number {
  const a = tf.randomNormal([1024, 1024]);
  const b = tf.randomNormal([1024, 1024]);
  try {
    const times = Array.from({ length: 10 }, () => {
      const t0 = performance.now();
      tf.matMul(a, b, false, true).dispose();
      return (performance.now() - t0) / 1000;
    }).slice(1);
    return (2 * 1024 ** 3) / median(times);
  } finally {
    a.dispose();
    b.dispose();
  }
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, { options: { model: { type: 'string' }, reps: { type: 'string', default: '3' } } });
  const modelDir = path.resolve(values.model ?? defaultModelDir());
  const reps = Number(values.reps);
  if (!Number.isInteger(reps) || reps < 1) throw new Error(`--reps must be a whole number of at least 1, got ${values.reps}`);
  const model = await Model.load(modelDir);
  const c = modelTrainingDefaults(modelDir);
  const gate = CompetenceGate.load(modelDir);
  if (!gate.set) throw new Error(`${modelDir} has no competence set, so there is no gate to measure`);
  const items = competenceSample(gate.set, c.competence_prompts);
  const prompts = items.map((it) => model.encodeChat({ messages: it.messages, addGenerationPrompt: true }).ids);
  const o = { maxTokens: c.competence_max_tokens };

  const live = await gate.measure(model, null, c);
  const promptTokens = prompts.reduce((s, p) => s + p.length, 0);
  const answerTokens = live.answers.reduce((s, a) => s + a.length, 0);
  console.log(
    `gate check against a training step, ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), ${path.basename(modelDir)}`,
  );
  console.log(
    `sample: ${items.length} prompts (${promptTokens} tokens), live answers ${answerTokens} tokens, decoded from scratch in ${live.seconds.toFixed(2)} s`,
  );

  const rows: Record<string, number[]> = { step: [], check: [], merge: [], pass: [], rest: [], loraPass: [], decode: [], loraDecode: [] };
  let changed = 0;
  let stepTokens = 0;
  for (let rep = 0; rep < reps; rep++) {
    // The adapter and optimizer the trainer makes for its first step.
    const policy = new LivePolicy(0, null, () => {}); // nothing is served here: no announcements
    const { adapter, optimizer } = policy.trainable(model.config, c, rep + 1);
    const pick = Array.from({ length: c.batch_size }, (_, k) => (rep * c.batch_size + k * 7) % prompts.length);
    stepTokens += pick.reduce((n, i) => n + prompts[i].length + live.answers[i].length, 0) / reps;
    const step = await timed(async () => {
      const batch = await stepBatch(
        model,
        pick.map((i) => prompts[i]),
        pick.map((i) => live.answers[i]),
      );
      for (let pass = 0; pass < c.ppo_epochs; pass++) {
        await policyGradientStep(model.lm, adapter, optimizer, batch, {
          learningRate: c.learning_rate,
          epsLow: c.eps_low,
          epsHigh: c.eps_high,
          klCoef: effectiveKlCoef(c),
          entropyCoef: c.entropy_coef,
        });
      }
    });
    const check = await gate.measure(model, adapter, c, { like: live });
    // The check's parts, with the adapter merged (as the check runs them) and through the LoRA path.
    const merge = await timed(() => model.withMergedAdapter(adapter));
    const merged = merge.value;
    const pairs = prompts.map((p, i) => ({ promptIds: p, responseIds: live.answers[i] }));
    const pass = await timed(() => greedyTokens(merged.lm, pairs));
    const loraPass = await timed(() => greedyTokens(model.lm, pairs, { adapter }));
    const changedPrompts = prompts.filter((_, i) => check.answers[i].join() !== live.answers[i].join());
    const decode = await timed(() => greedyAnswers(merged, null, changedPrompts, o));
    const loraDecode = await timed(() => greedyAnswers(model, adapter, changedPrompts, o));
    merged.dispose();
    const rest = { s: check.seconds - merge.s - pass.s };
    for (const [k, v] of Object.entries({ step, check: { s: check.seconds }, merge, pass, rest, loraPass, decode, loraDecode }))
      rows[k].push(v.s);
    changed += check.generated;
    policy.clear();
  }
  const m = Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, median(v)]));
  console.log(`training step (${c.batch_size} samples, ${c.ppo_epochs} passes, KL ${effectiveKlCoef(c)}): ${m.step.toFixed(2)} s`);
  console.log(
    `gate check (${items.length} prompts, ${(changed / reps).toFixed(1)} answers changed on average): ${m.check.toFixed(2)} s = ` +
      `${(m.check / m.step).toFixed(2)} × the step`,
  );
  console.log(`  merging the adapter into a copy of the weights: ${m.merge.toFixed(2)} s`);
  console.log(
    `  teacher-forced pass over the ${items.length} live answers: ${m.pass.toFixed(2)} s (through the LoRA path: ${m.loraPass.toFixed(2)} s)`,
  );
  console.log(
    `  the rest of the check (decoding the changed answers on from where they part, on its pass's keys and values; scoring): ${m.rest.toFixed(2)} s (the check less the merge and the pass above, which is timed apart and keeps no cache)`,
  );
  console.log(
    `  for comparison, decoding the changed answers from their prompts, whole: ${m.decode.toFixed(2)} s (through the LoRA path: ${m.loraDecode.toFixed(2)} s)`,
  );
  // The floor of an exact check: its pass must run every prompt and live answer token through the
  // projections, and every answer position through the output head (the argmax it compares).
  const f = weightFlops(model.config);
  const passFlops = (promptTokens + answerTokens) * f.projections + answerTokens * f.head;
  // A step: one scoring pass and ppo_epochs forward and backward passes over its samples, a backward
  // through frozen weights (the input's gradient) counted as one more forward; an estimate.
  const stepFlops = stepTokens * (f.projections + f.head) * (1 + 2 * c.ppo_epochs);
  const peak = matmulPeak();
  console.log(
    `the pass's products with the weights: ${(passFlops / 1e9).toFixed(0)} GFLOP, at ${(passFlops / m.pass / 1e9).toFixed(0)} GFLOP/s ` +
      `(the step's, estimated: ${(stepFlops / 1e9).toFixed(0)} GFLOP for its ${stepTokens.toFixed(0)} tokens)`,
  );
  console.log(
    `a 1024³ product here: ${(peak / 1e9).toFixed(0)} GFLOP/s, at which the pass alone would take ${(passFlops / peak).toFixed(2)} s = ` +
      `${(passFlops / peak / m.step).toFixed(2)} × the step`,
  );
  model.dispose();
}

await main();
