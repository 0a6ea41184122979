/**
 * `npm run eval:default [-- --model DIR --n N]`
 *
 * Measures the default model on held-out generated examples and writes the figures into its
 * MODEL_CARD.md (and eval.json): task accuracy, the unprompted style mix, hint following, and the
 * model as its own judge (PRM agreement with the generator's labels, and whether its hints are
 * correct and actionable), on phrasings never seen in training.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChatMessage } from '../../main/engine/text/chatTemplate.js';
import { DecodeBatcher } from '../../main/engine/generation/decodeBatcher.js';
import { generateText } from '../../main/engine/generation/generate.js';
import { Model } from '../../main/engine/model/model.js';
import { withHint } from '../../main/engine/text/openaiMessages.js';
import { fillJudgePrompt, loadJudgePrompts } from '../../main/rl/judgePrompts.js';
import { parseBoxedScore, parseHint } from '../../main/rl/judgeParsing.js';
import { modelTrainingDefaults } from '../../main/rl/trainingConfig.js';
import { loadKnowledgeBase, type KnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';
import { isCorrect, makeTask, TASK_FAMILIES, type TaskFamily } from '../../main/tasks/taskFamilies.js';
import { CorpusGenerator } from './corpus.js';
import { prmScore, styleHint, WANTS } from './feedback.js';
import { DEFAULT_MODEL_NAME, SEEDS } from './modelSpec.js';
import { classifyStyle, DEFAULT_STYLE_MIX, STYLES, type Style } from './styles.js';
import type { EvalReport } from './evalReport.js';
import { writeModelCard } from './modelCard.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run eval:default -- [--model DIR] [--n N]

Measures the model on held-out examples (task accuracy, style mix, hint following, its judge) and
writes MODEL_CARD.md and eval.json into its folder.
  --model DIR   the model folder (default: the bundled clawloop-mini)
  --n N         held-out examples per measure (default: 200)`;

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: {
      model: { type: 'string', default: path.join(ROOT, 'resources/models', DEFAULT_MODEL_NAME) },
      n: { type: 'string', default: '200' },
    },
  });
  const t0 = performance.now();
  const model = await Model.load(values.model!);
  const judgeDir = judgeFolder(values.model!);
  const judgeModel = judgeDir ? await Model.load(judgeDir, { tokenizerDir: values.model! }) : model;
  const kb = loadKnowledgeBase();
  const n = Number(values.n);
  console.log(`judges: ${judgeDir ? `its judge, ${judgeDir}` : 'the model itself'}`);
  const report = await evaluate(model, judgeModel, kb, n, (s) => console.log(s));
  report.seconds = (performance.now() - t0) / 1000;
  report.judge = judgeDir ? path.relative(values.model!, judgeDir) : null;
  fs.writeFileSync(path.join(values.model!, 'eval.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeModelCard(values.model!, report);
  console.log(`wrote ${path.join(values.model!, 'MODEL_CARD.md')} (${report.seconds.toFixed(0)} s)`);
}

/** The judge the model folder recommends, when it is a model folder (the bundled model's own `judge`). */
function judgeFolder(modelDir: string): string | null {
  const judge = modelTrainingDefaults(modelDir).judge;
  return judge.kind === 'model' ? path.resolve(modelDir, judge.dir) : null;
}

/**
 * The model's figures: its answers, and the judges' on its turns. `judgeModel` judges (the model
 * itself when it has no judge of its own); the hints it gives are followed by `model`.
 */
export async function evaluate(model: Model, judgeModel: Model, kb: KnowledgeBase, n: number, log: (s: string) => void): Promise<EvalReport> {
  const eos = model.generation.eosTokenIds;
  const temperature = model.generation.temperature ?? 0.7;
  const topP = model.generation.topP ?? 0.95;
  let seed = SEEDS.eval;
  // Generations run CONCURRENCY at a time, their decode steps batched together. Each takes its
  // seed when it starts (in queue order) or is given one, so the figures do not depend on timing.
  const batchers = new Map<Model, DecodeBatcher>();
  const generator = (m: Model) => (messages: ChatMessage[], opts: { greedy?: boolean; temperature?: number; maxTokens?: number; seed?: number } = {}) => {
    if (!batchers.has(m)) batchers.set(m, new DecodeBatcher(m.lm));
    const ids = m.encodeChat({ messages }).ids;
    return generateText(m.lm, m.tokenizer, ids, {
      maxNewTokens: opts.maxTokens ?? 256,
      temperature: opts.greedy ? 0 : (opts.temperature ?? temperature),
      topP,
      seed: opts.seed ?? seed++,
      stopTokenIds: eos,
      batcher: batchers.get(m),
    }).then((r) => r.text);
  };
  const gen = generator(model);
  const judgeGen = generator(judgeModel);
  const examples: EvalReport['examples'] = [];
  const r = new Rng(SEEDS.eval);
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

  // Task accuracy: held-out question phrasings where a family has them, sampled and greedy.
  const sampled: Record<string, number> = {};
  const greedy: Record<string, number> = {};
  const mix: Record<Style, number> = { markdown: 0, plain: 0, terse: 0, warm: 0 };
  const perFamily = Math.ceil(n / TASK_FAMILIES.length);
  let all = 0;
  let allGreedy = 0;
  for (const family of TASK_FAMILIES) {
    let ok = 0;
    let okGreedy = 0;
    const tasks = Array.from({ length: perFamily }, (_, i) => makeTask(r, family, kb, { heldOutPhrasing: i % 2 === 0 }));
    const outs = await inParallel(tasks, (t) => {
      const m: ChatMessage[] = [{ role: 'user', content: t.question }];
      return Promise.all([gen(m), gen(m, { greedy: true })]);
    });
    for (let i = 0; i < perFamily; i++) {
      const t = tasks[i];
      const [a, g] = outs[i];
      if (isCorrect(t, a)) ok++;
      if (isCorrect(t, g)) okGreedy++;
      mix[classifyStyle(a)]++;
      if (i < 2) examples.push({ kind: `${family} (sampled)`, prompt: t.question, output: a });
    }
    sampled[family] = ok / perFamily;
    greedy[family] = okGreedy / perFamily;
    all += ok;
    allGreedy += okGreedy;
    log(`accuracy ${family}: sampled ${pct(sampled[family])}, greedy ${pct(greedy[family])}`);
  }
  sampled.all = all / (perFamily * TASK_FAMILIES.length);
  greedy.all = allGreedy / (perFamily * TASK_FAMILIES.length);
  for (const s of STYLES) mix[s] /= perFamily * TASK_FAMILIES.length;
  log(`style mix: ${STYLES.map((s) => `${s} ${pct(mix[s])}`).join(', ')}`);

  // Hint following: a style hint appended as the OPD teacher sees it.
  const following: Record<string, number> = {};
  const hintedAccuracy: Record<string, number> = {};
  const hintFamilies: TaskFamily[] = ['arithmetic', 'units', 'grading'];
  const perStyle = Math.ceil(n / STYLES.length);
  let followedAll = 0;
  for (const style of STYLES) {
    let ok = 0;
    let right = 0;
    const cases = Array.from({ length: perStyle }, (_, i) => ({
      t: makeTask(r, hintFamilies[i % hintFamilies.length], kb),
      hint: styleHint(r, style),
    }));
    const outs = await inParallel(cases, (c) => gen(withHint([{ role: 'user', content: c.t.question }], c.hint)));
    for (let i = 0; i < perStyle; i++) {
      const t = cases[i].t;
      const a = outs[i];
      if (classifyStyle(a) === style) ok++;
      if (isCorrect(t, a)) right++;
      if (i === 0) examples.push({ kind: `hint → ${style}`, prompt: t.question, output: a });
    }
    following[style] = ok / perStyle;
    hintedAccuracy[style] = right / perStyle;
    followedAll += ok;
  }
  following.all = followedAll / (perStyle * STYLES.length);
  log(`hint following: ${STYLES.map((s) => `${s} ${pct(following[s])}`).join(', ')}; all ${pct(following.all)}`);
  log(`task accuracy when asked for a style: ${STYLES.map((s) => `${s} ${pct(hintedAccuracy[s])}`).join(', ')}`);

  // The judges, at the judge temperature (0.6), one vote each, on held-out phrasings.
  const prompts = loadJudgePrompts(judgeModel.dir);
  const judge = async (which: 'prm' | 'hint', c: ReturnType<CorpusGenerator['judgeCase']>) => {
    const p = fillJudgePrompt(prompts[which], {
      response: c.response,
      toolCalls: c.toolCall ? [c.toolCall] : [],
      nextStateRole: c.nextRole,
      nextStateText: c.next,
    });
    return judgeGen(
      [
        { role: 'system', content: p.system },
        { role: 'user', content: p.user },
      ],
      { temperature: 0.6, maxTokens: 120 },
    );
  };
  const want = (c: ReturnType<CorpusGenerator['judgeCase']>) =>
    c.nextRole === 'tool' ? (c.kind === 'satisfied' ? 1 : -1) : prmScore(c.kind);
  const prmOn = async (heldOut: boolean) => {
    const g = new CorpusGenerator(SEEDS.eval + (heldOut ? 1 : 2), kb);
    let ok = 0;
    const byLabel: Record<string, [number, number]> = {};
    const cases = Array.from({ length: n }, () => g.judgeCase({ heldOut }));
    const outs = await inParallel(cases, (c) => judge('prm', c));
    for (let i = 0; i < n; i++) {
      const c = cases[i];
      const out = outs[i];
      const label = String(want(c));
      byLabel[label] ??= [0, 0];
      byLabel[label][1]++;
      if (parseBoxedScore(out) === want(c)) {
        ok++;
        byLabel[label][0]++;
      }
      if (heldOut && i < 3) examples.push({ kind: 'PRM judge', prompt: c.next, output: out });
    }
    return { rate: ok / n, byLabel: Object.fromEntries(Object.entries(byLabel).map(([k, [a, b]]) => [k, a / b])) };
  };
  const held = await prmOn(true);
  const inDist = await prmOn(false);
  log(`PRM agreement: held-out phrasings ${pct(held.rate)}, training-like phrasings ${pct(inDist.rate)}`);

  // Hint judge: the right decision, and for a style complaint a hint that, appended to a new
  // question, makes the model answer in the style the user asked for.
  const hg = new CorpusGenerator(SEEDS.eval + 3, kb);
  let decision = 0;
  let noHintCases = 0;
  let falseHints = 0;
  /** Per kind of case that needs a hint: cases, hints given, and correct and actionable ones. */
  const byKind: Record<string, { cases: number; hints: number; actionable: number }> = {};
  // Each case: the judge's output and, for a style complaint it gave a hint for, the model's
  // answer to a new question with that hint appended.
  const hintCases = Array.from({ length: n }, (_, i) => ({
    c: hg.judgeCase({ heldOut: true }),
    t: makeTask(r, hintFamilies[i % hintFamilies.length], kb),
  }));
  const hintOuts = await inParallel(hintCases, async ({ c, t }, i) => {
    const out = await judge('hint', c);
    const hint = parseBoxedScore(out) === 1 ? parseHint(out) : null;
    const answer =
      hint && WANTS[c.kind as keyof typeof WANTS]
        ? await gen(withHint([{ role: 'user', content: t.question }], hint), { seed: SEEDS.eval + 100_000 + i })
        : null;
    return { out, hint, answer };
  });
  for (let i = 0; i < n; i++) {
    const { c } = hintCases[i];
    const { out, hint, answer } = hintOuts[i];
    const should = c.hint !== null;
    if ((hint !== null) === should) decision++;
    if (!should) {
      noHintCases++;
      if (hint) falseHints++;
      continue;
    }
    const k = (byKind[c.nextRole === 'tool' ? 'tool-error' : c.kind] ??= { cases: 0, hints: 0, actionable: 0 });
    k.cases++;
    if (!hint) continue;
    k.hints++;
    const target = WANTS[c.kind as keyof typeof WANTS];
    let ok: boolean;
    if (target) {
      ok = classifyStyle(answer!) === target;
    } else if (c.nextRole === 'tool') {
      ok = /city|argument|error/i.test(hint);
    } else {
      // A wrong answer: the hint must carry the correction the user gave (or ask to recompute).
      const nums = c.next.match(/\d+/g) ?? [];
      ok = nums.length === 0 ? /check|recompute|again/i.test(hint) : nums.some((x) => hint.includes(x));
    }
    if (ok) k.actionable++;
    if (i < 4) examples.push({ kind: 'hint judge', prompt: c.next, output: out });
  }
  const hintJudge = {
    decision: decision / n,
    correct_actionable: sum(byKind, 'actionable') / Math.max(1, sum(byKind, 'cases')),
    false_hints: falseHints / Math.max(1, noHintCases),
    cases: n,
    by_kind: byKind,
  };
  log(
    `hint judge: decisions ${pct(hintJudge.decision)}, correct and actionable hints ${pct(hintJudge.correct_actionable)}, false hints ${pct(hintJudge.false_hints)}\n` +
      `  by kind (hints given, correct and actionable, of cases): ${Object.entries(byKind)
        .map(([kind, v]) => `${kind} ${v.hints}, ${v.actionable} of ${v.cases}`)
        .join('; ')}`,
  );

  for (const b of batchers.values()) b.dispose();
  return {
    n,
    sampling: { temperature, top_p: topP },
    accuracy: { sampled: sampled as EvalReport['accuracy']['sampled'], greedy: greedy as EvalReport['accuracy']['greedy'] },
    style_mix: mix,
    style_mix_target: { ...DEFAULT_STYLE_MIX },
    hint_following: following as EvalReport['hint_following'],
    hinted_accuracy: hintedAccuracy as EvalReport['hinted_accuracy'],
    prm: { held_out: held.rate, in_distribution: inDist.rate, by_label: held.byLabel },
    hint_judge: hintJudge,
    examples,
    seconds: 0,
  };
}

/** Maps `items` through `fn`, CONCURRENCY at a time, keeping their order. */
/** The total of one count over every kind of case. */
function sum(byKind: Record<string, Record<'cases' | 'hints' | 'actionable', number>>, key: 'cases' | 'hints' | 'actionable'): number {
  return Object.values(byKind).reduce((t, v) => t + v[key], 0);
}

const CONCURRENCY = 32;
async function inParallel<T, R>(items: T[], fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
