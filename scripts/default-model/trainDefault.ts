/**
 * `npm run train:default [-- --steps N --out DIR --work DIR --fresh --from-model DIR]` (--steps: train the
 * model to step N instead, the cosine then decaying over N, and its judge from there; --from-model: start an
 * empty work folder from a model folder trained to the start of a later phase, to run only what follows)
 *
 * Trains ClawLoop's default model from scratch with ClawLoop's own engine (full fine-tuning on
 * CPU): writes the invented world, learns a byte-level BPE tokenizer on the generated corpus,
 * initialises a Qwen3-shaped model and trains it on a deterministic stream of generated
 * conversations. Progress is checkpointed in the work folder, so an interrupted run resumes where
 * it stopped. The finished model folder is written to `resources/models/clawloop-mini/`, with its
 * judge (Recipe.judge: the model trained on for a phase of judge examples) in its `judge/` folder;
 * `npm run eval:default` then measures it and writes its MODEL_CARD.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { CausalLM } from '../../main/engine/model/causalLM.js';
import { ChatTemplate } from '../../main/engine/text/chatTemplate.js';
import { parseModelConfig } from '../../main/engine/model/config.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { readSafetensors } from '../../main/engine/formats/safetensors.js';
import { writeSafetensors } from '../../main/engine/formats/safetensorsWrite.js';
import { TextTokenizer } from '../../main/engine/text/tokenizer.js';
import { computeGradients, type LossFn } from '../../main/engine/training/train.js';
import { makeKnowledgeBase, type KnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';
import { trainBpe, tokenizerConfig, tokenizerJson } from './bpe.js';
import { CorpusGenerator } from './corpus.js';
import { encodeExample, renderExample } from './encodeExample.js';
import { DEFAULT_MODEL_JUDGE_PROMPTS } from './judgePrompts.js';
import { DEFAULT_MODEL_NAME, JUDGE_FOLDER, modelConfigJson, RECIPE, RECOMMENDED_TRAINING, SEEDS, type Recipe } from './modelSpec.js';
import { quickEval } from './quickEval.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run train:default -- [options]

Trains the bundled model (clawloop-mini) and its judge from scratch on this machine; resumable.
  --out DIR          the model folder to write (default: resources/models/clawloop-mini)
  --work DIR         checkpoints and logs (default: .cache/default-model); a rerun resumes there
  --steps N          train the model to step N (the cosine decays over N), its judge from there
  --fresh            start over, discarding the work folder
  --from-model DIR   seed an empty work folder from a model folder at the start of a later phase
  --eval-every N     steps between quick evaluations (default: 500)
  --save-every N     steps between checkpoints (default: 100)`;

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const KB_FILE = path.join(ROOT, 'resources/tasks/knowledge-base.json');
const TEMPLATE_FILE = path.join(ROOT, 'resources/chat-templates/clawloop.jinja');

interface TrainState {
  step: number;
  /** Examples drawn from the training stream (whole pools only). */
  examples: number;
  pools: number;
  elapsedMs: number;
  tokens: number;
  recipe: Recipe;
  history: Array<{ step: number; loss: number; lr: number; tokensPerS: number; elapsedS: number }>;
  evals: Array<{ step: number } & Record<string, number>>;
  /** Where the continuation phase began in the stream (recipe.continuation), once it has. */
  continuedAt?: { examples: number; pools: number };
  /** Where the third phase began (recipe.gradingContinuation), once it has. */
  gradingAt?: { examples: number; pools: number };
  /** Where the judge's phase began (recipe.judge, after the model's last step), once it has. */
  judgeAt?: { examples: number; pools: number };
  /** The model's last step and training totals, where the judge's phase began (what its folder reports). */
  modelTotals?: { step: number; tokens: number; elapsedMs: number };
}

const log = (s: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${s}`);

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(value, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
}

/** The invented world: written once from its seed, then always read back (the model depends on it). */
function ensureWorld(): KnowledgeBase {
  if (fs.existsSync(KB_FILE)) {
    const kb = readJson<KnowledgeBase>(KB_FILE);
    if (kb.seed !== SEEDS.world) throw new Error(`${KB_FILE} was made with seed ${kb.seed}; the recipe uses ${SEEDS.world}`);
    return kb;
  }
  const kb = makeKnowledgeBase(SEEDS.world);
  fs.mkdirSync(path.dirname(KB_FILE), { recursive: true });
  writeJson(KB_FILE, kb);
  log(`wrote ${path.relative(ROOT, KB_FILE)} (${kb.countries.length} countries)`);
  return kb;
}

/** Learns the tokenizer on 20,000 generated conversations (once; reused on resume). */
function ensureTokenizer(dir: string, kb: KnowledgeBase, template: ChatTemplate, templateSource: string): TextTokenizer {
  const tj = path.join(dir, 'tokenizer.json');
  const tc = path.join(dir, 'tokenizer_config.json');
  if (!fs.existsSync(tj)) {
    const gen = new CorpusGenerator(SEEDS.tokenizerCorpus, kb);
    const texts = Array.from({ length: 20_000 }, () => renderExample(template, gen.next()).text);
    const t0 = performance.now();
    const bpe = trainBpe(texts, RECIPE.vocabBudget);
    writeJson(tj, tokenizerJson(bpe));
    writeJson(tc, tokenizerConfig(templateSource, 1024));
    log(
      `tokenizer: ${bpe.vocab.size} byte-level BPE tokens (${bpe.merges.length} merges) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  return TextTokenizer.fromDir(dir);
}

interface Batch {
  ids: number[][];
  mask: number[][];
  tokens: number;
}

/**
 * Batches from the training stream: pools of 512 examples are sorted by length and cut into
 * batches of at most `batchTokens` (padding included), whose order is then shuffled.
 */
class BatchStream {
  private queue: Batch[] = [];
  examples: number;
  pools: number;
  private readonly gen: CorpusGenerator;

  constructor(
    kb: KnowledgeBase,
    private readonly template: ChatTemplate,
    private readonly tokenizer: TextTokenizer,
    private readonly recipe: Recipe,
    resume: Pick<TrainState, 'examples' | 'pools' | 'continuedAt' | 'gradingAt' | 'judgeAt'>,
  ) {
    this.gen = new CorpusGenerator(SEEDS.train, kb);
    this.terseWorkingFrom = resume.continuedAt?.examples ?? Infinity;
    this.gradingWorkFirstFrom = resume.gradingAt?.examples ?? Infinity;
    this.judgePhaseFrom = resume.judgeAt?.examples ?? Infinity;
    for (let i = 0; i < resume.examples; i++) this.draw(i);
    this.examples = resume.examples;
    this.pools = resume.pools;
  }

  /** The first example whose terse answers keep their working (the continuation's start). */
  terseWorkingFrom: number;
  /** The first example whose grading comments work the problem out first (the third phase's start). */
  gradingWorkFirstFrom: number;
  /** The first example of the judge's phase (praise that names a quality, mostly judge examples). */
  judgePhaseFrom: number;

  private draw(index: number) {
    const judgePhase = index >= this.judgePhaseFrom;
    this.gen.phrases = judgePhase ? 3 : index >= this.recipe.phrasesV2FromExample ? 2 : 1;
    this.gen.judgeMix = judgePhase;
    this.gen.terseWorking = index >= this.terseWorkingFrom;
    this.gen.gradingWorkFirst = index >= this.gradingWorkFirstFrom;
    return this.gen.next();
  }

  /** Drops what is left of the current pool, so the next batch starts a new one. */
  endPool(): void {
    this.queue = [];
  }

  /** True when the next batch starts a new pool (a consistent point to checkpoint). */
  get atPoolBoundary(): boolean {
    return this.queue.length === 0;
  }

  next(): Batch {
    if (this.queue.length === 0) this.fill();
    return this.queue.shift()!;
  }

  private fill(): void {
    const pool: Array<{ ids: number[]; weights: number[] }> = [];
    while (pool.length < 512) {
      const ex = this.draw(this.examples);
      this.examples++;
      const enc = encodeExample(this.template, this.tokenizer, ex, {
        learned: this.recipe.learnedWeight,
        context: this.recipe.contextWeight,
      });
      if (enc.ids.length <= this.recipe.maxTokens) pool.push(enc);
    }
    pool.sort((a, b) => a.ids.length - b.ids.length);
    const batches: Batch[] = [];
    let cur: typeof pool = [];
    const flush = () => {
      if (!cur.length) return;
      batches.push({
        ids: cur.map((e) => e.ids),
        mask: cur.map((e) => e.weights.map((w, t) => (t === 0 ? 0 : w))),
        tokens: cur.reduce((s, e) => s + e.ids.length, 0),
      });
      cur = [];
    };
    for (const e of pool) {
      if ((cur.length + 1) * e.ids.length > this.recipe.batchTokens) flush();
      cur.push(e);
    }
    flush();
    this.queue = new Rng(SEEDS.train ^ (this.pools * 7919)).shuffle(batches);
    this.pools++;
  }
}

/**
 * Micro-batches whose activations fit comfortably in tfjs-wasm's 4 GB heap: tfjs keeps every
 * intermediate tensor until the backward pass ends, and attention's are B·heads·T² floats.
 */
const MICRO_TOKENS = 1536;
const MICRO_ATTENTION = 400_000; // B·T²

function microBatches(batch: Batch): Array<{ ids: number[][]; mask: number[][] }> {
  const out: Array<{ ids: number[][]; mask: number[][] }> = [];
  let cur: { ids: number[][]; mask: number[][] } = { ids: [], mask: [] };
  for (let i = 0; i < batch.ids.length; i++) {
    const T = Math.max(batch.ids[i].length, ...cur.ids.map((x) => x.length));
    const B = cur.ids.length + 1;
    if (cur.ids.length && (B * T > MICRO_TOKENS || B * T * T > MICRO_ATTENTION)) {
      out.push(cur);
      cur = { ids: [], mask: [] };
    }
    cur.ids.push(batch.ids[i]);
    cur.mask.push(batch.mask[i]);
  }
  if (cur.ids.length) out.push(cur);
  return out;
}

/**
 * Gradients of the batch's weighted mean cross-entropy, summed over micro-batches: each
 * micro-batch's loss is divided by the whole batch's weight, so the sum is exactly the batch loss.
 */
async function accumulateGradients(lm: CausalLM, batch: Batch): Promise<{ loss: number; grads: Map<string, tf.Tensor> }> {
  let total = 0;
  for (const m of batch.mask) for (const w of m) total += w;
  const lossFn: LossFn = ({ logprobs, mask }) => tf.neg(tf.div(tf.sum(tf.mul(logprobs, mask)), total)) as tf.Scalar;
  let grads: Map<string, tf.Tensor> | null = null;
  let loss = 0;
  for (const mb of microBatches(batch)) {
    if (!mb.mask.some((m) => m.some((w) => w > 0))) continue;
    const g = await computeGradients(lm, mb, lossFn, 'full');
    loss += g.loss;
    if (!grads) grads = g.grads;
    else {
      for (const [name, t] of g.grads) {
        const prev = grads.get(name)!;
        grads.set(name, tf.add(prev, t));
        prev.dispose();
        t.dispose();
      }
    }
  }
  if (!grads) throw new Error('a batch without any trained token');
  return { loss, grads };
}

/** The judge's phase, which starts after the model's last step. */
function judgePhase(r: Recipe): { atStep: number; lr: number; warmupSteps: number } | undefined {
  return r.judge && { atStep: r.steps, lr: r.judge.lr, warmupSteps: r.judge.warmupSteps };
}

/** The step training ends at: the model's last, or the judge's. */
function finalStep(r: Recipe): number {
  return r.steps + (r.judge?.steps ?? 0);
}

/** The phases after the first, in order: each restarts the learning rate and decays it until the next. */
function laterPhases(r: Recipe): Array<{ atStep: number; lr: number; warmupSteps: number }> {
  return [r.continuation, r.gradingContinuation, judgePhase(r)].filter((p) => p !== undefined);
}

function learningRate(r: Recipe, step: number): number {
  const phases = laterPhases(r);
  const k = phases.findLastIndex((p) => step >= p.atStep);
  if (k >= 0) {
    const p = phases[k];
    const end = phases[k + 1]?.atStep ?? finalStep(r);
    return cosineRate(p.lr, step - p.atStep, p.warmupSteps, end - p.atStep, r.minLrRatio);
  }
  const total = r.earlierPlan && step < r.earlierPlan.before ? r.earlierPlan.steps : r.steps;
  return cosineRate(r.lr, step, r.warmupSteps, total, r.minLrRatio);
}

/** Linear warm-up to `peak`, then cosine decay to `minRatio`·peak at step `total`. */
function cosineRate(peak: number, step: number, warmup: number, total: number, minRatio: number): number {
  if (step < warmup) return (peak * (step + 1)) / warmup;
  const p = Math.min(1, (step - warmup) / Math.max(1, total - warmup));
  return peak * (minRatio + (1 - minRatio) * 0.5 * (1 + Math.cos(Math.PI * p)));
}

/** The wasm heap's size (it only grows; tfjs-wasm stops at 4 GB). */
function heapMb(): string {
  const heap = (tf.backend() as unknown as { wasm?: { HEAPU8: Uint8Array } }).wasm?.HEAPU8;
  return heap ? (heap.length / 2 ** 20).toFixed(0) : '?';
}

async function saveWeights(lm: CausalLM, file: string): Promise<void> {
  writeSafetensors(file, await lm.exportTensors(), { format: 'pt' });
}

/**
 * Starts the second or third phase, or the judge's, when the step reaches it: the rest of the pool
 * is dropped and the stream's examples change from the next one on. True when one began (AdamW
 * starts afresh).
 */
function enterPhase(recipe: Recipe, state: TrainState, stream: BatchStream): boolean {
  const at = () => ({ examples: stream.examples, pools: stream.pools });
  const c = recipe.continuation;
  if (c && state.step >= c.atStep && !state.continuedAt) {
    stream.endPool();
    state.continuedAt = at();
    stream.terseWorkingFrom = stream.examples;
    log(`step ${state.step}: continuation from example ${stream.examples} (fresh AdamW, terse answers keep their working)`);
    return true;
  }
  const g = recipe.gradingContinuation;
  if (g && state.step >= g.atStep && !state.gradingAt) {
    stream.endPool();
    state.gradingAt = at();
    stream.gradingWorkFirstFrom = stream.examples;
    log(`step ${state.step}: third phase from example ${stream.examples} (fresh AdamW, grading comments work the problem out first)`);
    return true;
  }
  if (recipe.judge && state.step >= recipe.steps && !state.judgeAt) {
    stream.endPool();
    state.judgeAt = at();
    stream.judgePhaseFrom = stream.examples;
    log(`step ${state.step}: the judge's phase from example ${stream.examples} (fresh AdamW, praise that names a quality, mostly judge examples)`);
    return true;
  }
  return false;
}

function newOptimizer(lm: CausalLM, recipe: Recipe): AdamW {
  return new AdamW(
    lm.parameters(),
    { lr: recipe.lr, weightDecay: recipe.weightDecay, beta1: 0.9, beta2: 0.95, maxGradNorm: 1 },
    { decays: (name) => !/norm|bias/.test(name) },
  );
}

/**
 * Starts the work folder from a model folder trained to the start of a later phase (its weights,
 * tokenizer and training log), for a run whose work folder is gone. The training stream is
 * rebuilt where the log says the model's last phase began and replayed without training from
 * there, to find where the model's last step left it. (The log's positions, not a replay from step
 * 0: a run that ended at a phase's first step and was resumed drew that phase from the last whole
 * pool, not from the next one, as the shipped model's third phase did.) AdamW's moments are not in
 * a model folder, which costs nothing: each phase starts a fresh optimizer either way.
 */
function seedFromModel(dir: string, work: string, recipe: Recipe, kb: KnowledgeBase, template: ChatTemplate): void {
  type Logged = { steps: number; tokens: number; train_minutes: number } & Pick<TrainState, 'history' | 'evals'> & {
      continued_at?: TrainState['continuedAt'] | null;
      grading_at?: TrainState['gradingAt'] | null;
    };
  const trained = readJson<Logged>(path.join(dir, 'training_log.json'));
  const starts = laterPhases(recipe).map((p) => p.atStep);
  if (!starts.includes(trained.steps)) {
    throw new Error(`${dir} was trained for ${trained.steps} steps; --from-model continues at a phase start (step ${starts.join(' or ')})`);
  }
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'model.safetensors']) fs.copyFileSync(path.join(dir, f), path.join(work, f));
  const t0 = performance.now();
  const continuedAt = trained.continued_at ?? undefined;
  const gradingAt = trained.grading_at ?? undefined;
  const last = gradingAt
    ? { at: gradingAt, step: recipe.gradingContinuation!.atStep }
    : continuedAt
      ? { at: continuedAt, step: recipe.continuation!.atStep }
      : { at: { examples: 0, pools: 0 }, step: 0 };
  const state: TrainState = { step: last.step, ...last.at, continuedAt, gradingAt, elapsedMs: 0, tokens: 0, recipe, history: [], evals: [] };
  const stream = new BatchStream(kb, template, TextTokenizer.fromDir(work), recipe, state);
  for (; state.step < trained.steps; state.step++) {
    enterPhase(recipe, state, stream);
    stream.next();
  }
  Object.assign(state, {
    examples: stream.examples,
    pools: stream.pools,
    elapsedMs: trained.train_minutes * 60000,
    tokens: trained.tokens,
    history: trained.history,
    evals: trained.evals,
  });
  writeJson(path.join(work, 'state.json'), state);
  log(`seeded ${work} from ${dir} at step ${trained.steps} (stream replayed to example ${stream.examples} in ${((performance.now() - t0) / 1000).toFixed(0)} s)`);
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: {
      out: { type: 'string', default: path.join(ROOT, 'resources/models', DEFAULT_MODEL_NAME) },
      work: { type: 'string', default: path.join(ROOT, '.cache/default-model') },
      steps: { type: 'string' },
      fresh: { type: 'boolean', default: false },
      'from-model': { type: 'string' },
      'eval-every': { type: 'string', default: '500' },
      'save-every': { type: 'string', default: '100' },
    },
  });
  const work = path.resolve(values.work!);
  const out = path.resolve(values.out!);
  if (values.fresh) fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  // --steps N trains to step N instead; the cosine then decays over N steps.
  const recipe: Recipe = { ...RECIPE, steps: values.steps ? Number(values.steps) : RECIPE.steps };
  const evalEvery = Number(values['eval-every']);
  const saveEvery = Number(values['save-every']);

  await initBackend(undefined, { log });
  const kb = ensureWorld();
  const templateSource = fs.readFileSync(TEMPLATE_FILE, 'utf8');
  const template = new ChatTemplate(templateSource, { eos_token: '<|im_end|>', pad_token: '<|endoftext|>' });
  if (values['from-model'] && !fs.existsSync(path.join(work, 'state.json'))) {
    seedFromModel(path.resolve(values['from-model']), work, recipe, kb, template);
  }
  const tokenizer = ensureTokenizer(work, kb, template, templateSource);
  const eosId = tokenizer.tokenToId('<|im_end|>')!;
  const padId = tokenizer.tokenToId('<|endoftext|>')!;
  const vocabSize = Math.ceil(tokenizer.vocabSize / 64) * 64;
  const configJson = modelConfigJson(vocabSize, eosId, padId);
  const config = parseModelConfig(configJson);

  const stateFile = path.join(work, 'state.json');
  const weightsFile = path.join(work, 'model.safetensors');
  const optFile = path.join(work, 'optimizer.safetensors');
  let state: TrainState;
  let lm: CausalLM;
  if (fs.existsSync(stateFile) && fs.existsSync(weightsFile)) {
    state = readJson<TrainState>(stateFile);
    const { tensors } = readSafetensors(weightsFile);
    lm = CausalLM.fromTensors(config, new Map([...tensors].map(([k, v]) => [k, v.data])));
    log(`resuming at step ${state.step} (${(state.elapsedMs / 60000).toFixed(1)} min trained so far)`);
  } else {
    state = { step: 0, examples: 0, pools: 0, elapsedMs: 0, tokens: 0, recipe, history: [], evals: [] };
    lm = CausalLM.random(config, SEEDS.init);
  }
  state.recipe = recipe;
  checkJudgeResume(recipe, state, path.join(work, 'policy.safetensors'));
  lm.setTrainable(true);
  const params = lm.parameters();
  let n = 0;
  for (const v of params.values()) n += v.size;
  log(`model: ${(n / 1e6).toFixed(2)} M parameters, vocab ${vocabSize}; training to step ${recipe.steps}${recipe.judge ? `, its judge to step ${finalStep(recipe)}` : ''}`);
  let opt = newOptimizer(lm, recipe);
  if (state.step > 0 && fs.existsSync(optFile)) opt.load(optFile);

  const stream = new BatchStream(kb, template, tokenizer, recipe, state);
  const save = async () => {
    await saveWeights(lm, `${weightsFile}.tmp`);
    fs.renameSync(`${weightsFile}.tmp`, weightsFile);
    await opt.save(optFile);
    writeJson(stateFile, state);
  };

  let windowLoss = 0;
  let windowTokens = 0;
  let windowSteps = 0;
  let windowStart = performance.now();
  let lastSave = state.step;
  const policyFile = path.join(work, 'policy.safetensors');
  while (state.step < finalStep(recipe)) {
    if (enterPhase(recipe, state, stream)) opt = newOptimizer(lm, recipe);
    // The model's weights are final where the judge's phase begins; the judge trains on from them.
    if (recipe.judge && state.step === recipe.steps && !state.modelTotals) {
      await saveWeights(lm, policyFile);
      state.modelTotals = { step: state.step, tokens: state.tokens, elapsedMs: state.elapsedMs };
    }
    const batch = stream.next();
    const t0 = performance.now();
    const lr = learningRate(recipe, state.step);
    const g = await accumulateGradients(lm, batch);
    const info = await opt.apply(g.grads, lr);
    lm.weightsChanged();
    if (info.skipped) log(`step ${state.step}: non-finite gradients, step skipped`);
    state.step++;
    state.tokens += batch.tokens;
    state.elapsedMs += performance.now() - t0;
    windowLoss += g.loss;
    windowTokens += batch.tokens;
    windowSteps++;
    if (state.step % 20 === 0) {
      const dt = (performance.now() - windowStart) / 1000;
      const entry = {
        step: state.step,
        loss: windowLoss / windowSteps,
        lr,
        tokensPerS: windowTokens / dt,
        elapsedS: state.elapsedMs / 1000,
      };
      state.history.push(entry);
      log(
        `step ${state.step}/${finalStep(recipe)} loss ${entry.loss.toFixed(4)} lr ${lr.toExponential(2)} ${entry.tokensPerS.toFixed(0)} tok/s ` +
          `(${(state.elapsedMs / 60000).toFixed(1)} min, ${(state.tokens / 1e6).toFixed(2)} M tokens, tensors ${tf.memory().numTensors}, heap ${heapMb()} MB)`,
      );
      windowLoss = windowTokens = windowSteps = 0;
      windowStart = performance.now();
    }
    if (stream.atPoolBoundary) {
      state.examples = stream.examples;
      state.pools = stream.pools;
      if (state.step - lastSave >= saveEvery) {
        await save();
        lastSave = state.step;
      }
    }
    if (evalEvery > 0 && state.step % evalEvery === 0) {
      const e = await quickEval(lm, tokenizer, template, kb, eosId, { show: (t) => console.log(t) });
      state.evals.push({ step: state.step, ...e });
      log(
        `eval @${state.step}: ${Object.entries(e)
          .map(([k, v]) => `${k} ${v.toFixed(2)}`)
          .join(', ')}`,
      );
    }
  }
  if (stream.atPoolBoundary) {
    state.examples = stream.examples;
    state.pools = stream.pools;
  }
  await save();

  const modelLog = writeModelFolder(out, work, configJson, eosId, padId, {
    recipe,
    steps: Math.min(state.step, recipe.steps),
    continued_at: state.continuedAt ?? null,
    grading_at: state.gradingAt ?? null,
    tokens: state.modelTotals?.tokens ?? state.tokens,
    train_minutes: (state.modelTotals?.elapsedMs ?? state.elapsedMs) / 60000,
    history: state.history.filter((h) => h.step <= recipe.steps),
    evals: state.evals.filter((e) => e.step <= recipe.steps),
  });
  writeJson(path.join(out, 'clawloop_training.json'), RECOMMENDED_TRAINING);
  if (recipe.judge) {
    fs.copyFileSync(policyFile, path.join(out, 'model.safetensors'));
    const judgeDir = path.join(out, JUDGE_FOLDER);
    writeModelFolder(judgeDir, work, configJson, eosId, padId, {
      ...modelLog,
      steps: state.step,
      judge_at: state.judgeAt ?? null,
      tokens: state.tokens,
      train_minutes: state.elapsedMs / 60000,
      history: state.history,
      evals: state.evals,
    }, false);
    await saveWeights(lm, path.join(judgeDir, 'model.safetensors'));
    log(`wrote ${judgeDir} (the judge: step ${state.step})`);
  } else {
    await saveWeights(lm, path.join(out, 'model.safetensors'));
  }
  log(`wrote ${out} (step ${modelLog.steps}, ${(fs.statSync(path.join(out, 'model.safetensors')).size / 1e6).toFixed(1)} MB weights)`);
}

/**
 * Refuses what would write the wrong weights as the model: a judge's phase begun at another step
 * (a rerun with another --steps), or a work folder past the model's last step without its weights
 * from that step. Each names what to do instead.
 */
function checkJudgeResume(recipe: Recipe, state: TrainState, policyFile: string): void {
  if (!recipe.judge) return;
  const lastStart = Math.max(0, ...laterPhases({ ...recipe, judge: undefined }).map((p) => p.atStep));
  if (recipe.steps <= lastStart) {
    throw new Error(`--steps ${recipe.steps}: the model must train past its last phase's start (step ${lastStart}) before its judge's phase begins`);
  }
  const began = state.modelTotals?.step;
  if (began !== undefined && began !== recipe.steps) {
    throw new Error(`the work folder's judge phase began after step ${began}, not ${recipe.steps}: continue with --steps ${began}, or start again with --fresh`);
  }
  if (state.step > recipe.steps && (began === undefined || !fs.existsSync(policyFile))) {
    throw new Error(`the work folder is at step ${state.step}, past the model's last step (${recipe.steps}), without the model's weights from that step: start again with --fresh`);
  }
}

/** A model folder's files but its weights (a judge's shares its model's tokenizer); returns the training log written. */
function writeModelFolder<T extends object>(dir: string, work: string, configJson: object, eosId: number, padId: number, trainingLog: T, ownTokenizer = true): T {
  fs.mkdirSync(dir, { recursive: true });
  writeJson(path.join(dir, 'config.json'), configJson);
  for (const f of ['tokenizer.json', 'tokenizer_config.json'])
    ownTokenizer ? fs.copyFileSync(path.join(work, f), path.join(dir, f)) : fs.rmSync(path.join(dir, f), { force: true });
  writeJson(path.join(dir, 'generation_config.json'), { eos_token_id: [eosId], pad_token_id: padId, temperature: 0.7, top_p: 0.95 });
  writeJson(path.join(dir, 'clawloop_judges.json'), DEFAULT_MODEL_JUDGE_PROMPTS);
  writeJson(path.join(dir, 'training_log.json'), trainingLog);
  return trainingLog;
}

await main();
