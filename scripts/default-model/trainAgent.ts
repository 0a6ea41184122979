/**
 * `npm run train:agent -- [options]`: the agent phase. Continues a trained model folder (the
 * bundled clawloop-mini by default) on OpenClaw-shaped turns (agentStream.ts) with its context
 * raised to 8,192 tokens (RoPE positions past the 1,024 it was trained on), full fine-tuning on
 * CPU. Checkpoints every `--save-every` steps in the work folder; `--resume` continues from the
 * last one with the same stream, optimizer moments and schedule. Writes a model folder to --out
 * (never into the repository unless asked: weights are committed only with a release).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { CausalLM } from '../../main/engine/model/causalLM.js';
import { parseModelConfig } from '../../main/engine/model/config.js';
import { ChatTemplate } from '../../main/engine/text/chatTemplate.js';
import { TextTokenizer } from '../../main/engine/text/tokenizer.js';
import { readSafetensors } from '../../main/engine/formats/safetensors.js';
import { writeSafetensors } from '../../main/engine/formats/safetensorsWrite.js';
import { AdamW } from '../../main/engine/training/optimizer.js';
import { computeGradients, type LossFn } from '../../main/engine/training/train.js';
import { defaultModelDir } from '../../main/resources.js';
import type { KnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { AgentStream, type AgentStreamOptions, type Encoded } from './agentStream.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run train:agent -- [options]
  --from DIR           model folder to continue (default: the bundled clawloop-mini)
  --work DIR           checkpoints and log (default: .cache/agent-model)
  --out DIR            model folder to write at the end (default: <work>/model)
  --steps N            optimizer steps (default: 600)
  --batch-tokens N     tokens per step, at least (default: 8192)
  --context N          context to train to: max_position_embeddings and the longest example (default: 8192)
  --agent-share F      share of agent examples, the rest ordinary ones (default: 0.6)
  --max-note-lines N   most workspace-note lines in an agent prompt; sets prompt length (default: 400)
  --tool-share F       share of agent examples whose request needs a tool (default: 0.55)
  --lr F               peak learning rate, after 20 warm-up steps, cosine to a tenth (default: 3e-4)
  --save-every N       steps between checkpoints (default: 10)
  --resume             continue from the work folder's last checkpoint
  --fresh              start over, discarding the work folder`;

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const SEED = 2026;
const log = (s: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${s}`);

interface State {
  step: number;
  /** Examples drawn from the stream so far. */
  index: number;
  elapsedMs: number;
  tokens: number;
  settings: Settings;
  history: Array<{ step: number; loss: number; agentLoss: number | null; lr: number; tokensPerS: number; elapsedS: number }>;
}

type Settings = AgentStreamOptions & { from: string; steps: number; batchTokens: number; lr: number };

function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(value, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
}

function learningRate(s: Settings, step: number): number {
  const warmup = 20;
  if (step < warmup) return (s.lr * (step + 1)) / warmup;
  const p = Math.min(1, (step - warmup) / Math.max(1, s.steps - warmup));
  return s.lr * (0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * p)));
}

/** Examples until the batch holds `batchTokens` tokens (the last one may take it past). */
function nextBatch(stream: AgentStream, batchTokens: number): Encoded[] {
  const out: Encoded[] = [];
  let n = 0;
  while (n < batchTokens) {
    const e = stream.next();
    out.push(e);
    n += e.ids.length;
  }
  return out;
}

/**
 * Gradients of the batch's weighted mean cross-entropy, one sequence at a time (no padding; a
 * long one is checkpointed layer by layer by computeGradients), summed: each sequence's loss is
 * divided by the whole batch's weight, so the sum is the batch loss. Also the agent examples' share.
 */
async function batchGradients(lm: CausalLM, batch: Encoded[]) {
  const weight = (e: Encoded) => e.weights.reduce((s, w, t) => s + (t === 0 ? 0 : w), 0);
  const total = batch.reduce((s, e) => s + weight(e), 0);
  const lossFn: LossFn = ({ logprobs, mask }) => tf.neg(tf.div(tf.sum(tf.mul(logprobs, mask)), total)) as tf.Scalar;
  const grads = new Map<string, tf.Tensor>();
  let loss = 0;
  let agentLoss = 0;
  let agentWeight = 0;
  for (const e of batch) {
    const g = await computeGradients(lm, { ids: [e.ids], mask: [e.weights.map((w, t) => (t === 0 ? 0 : w))] }, lossFn, 'full');
    loss += g.loss;
    if (e.agent) {
      agentLoss += g.loss;
      agentWeight += weight(e);
    }
    for (const [name, t] of g.grads) {
      const prev = grads.get(name);
      grads.set(name, prev ? tf.add(prev, t) : t);
      if (prev) tf.dispose([prev, t]);
    }
  }
  return { loss, agentLoss: agentWeight ? (agentLoss * total) / agentWeight : null, grads };
}

function loadModel(from: string, weightsFile: string, context: number): CausalLM {
  const configJson = JSON.parse(fs.readFileSync(path.join(from, 'config.json'), 'utf8'));
  const config = parseModelConfig({ ...configJson, max_position_embeddings: context });
  const { tensors } = readSafetensors(weightsFile);
  return CausalLM.fromTensors(config, new Map([...tensors].map(([k, v]) => [k, v.data])));
}

/** The model folder: the source's files with the new context, this phase's log, the new weights. */
async function writeModelFolder(out: string, lm: CausalLM, s: Settings, state: State): Promise<void> {
  fs.mkdirSync(out, { recursive: true });
  for (const f of ['tokenizer.json', 'generation_config.json', 'clawloop_judges.json', 'clawloop_training.json']) {
    if (fs.existsSync(path.join(s.from, f))) fs.copyFileSync(path.join(s.from, f), path.join(out, f));
  }
  const judge = path.join(s.from, 'judge');
  if (fs.existsSync(judge)) fs.cpSync(judge, path.join(out, 'judge'), { recursive: true });
  const config = JSON.parse(fs.readFileSync(path.join(s.from, 'config.json'), 'utf8'));
  writeJson(path.join(out, 'config.json'), { ...config, max_position_embeddings: s.maxTokens });
  const tc = JSON.parse(fs.readFileSync(path.join(s.from, 'tokenizer_config.json'), 'utf8'));
  writeJson(path.join(out, 'tokenizer_config.json'), { ...tc, model_max_length: s.maxTokens });
  writeJson(path.join(out, 'training_log_agent.json'), { ...state, cpu: os.cpus()[0]?.model, train_minutes: state.elapsedMs / 60000 });
  writeSafetensors(path.join(out, 'model.safetensors'), await lm.exportTensors(), { format: 'pt' });
}

/** A setting a person must change: printed without a stack trace. */
class UsageError extends Error {}

async function main(): Promise<void> {
  const { values: v } = scriptArgs(USAGE, {
    options: {
      from: { type: 'string', default: defaultModelDir() },
      work: { type: 'string', default: path.join(ROOT, '.cache/agent-model') },
      out: { type: 'string' },
      steps: { type: 'string', default: '600' },
      'batch-tokens': { type: 'string', default: '8192' },
      context: { type: 'string', default: '8192' },
      'agent-share': { type: 'string', default: '0.6' },
      'max-note-lines': { type: 'string', default: '400' },
      'tool-share': { type: 'string', default: '0.55' },
      lr: { type: 'string', default: '3e-4' },
      'save-every': { type: 'string', default: '10' },
      resume: { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
    },
  });
  const work = path.resolve(v.work!);
  const stateFile = path.join(work, 'state.json');
  const weightsFile = path.join(work, 'model.safetensors');
  const optFile = path.join(work, 'optimizer.safetensors');
  if (v.fresh) fs.rmSync(work, { recursive: true, force: true });
  if (fs.existsSync(stateFile) && !v.resume) throw new UsageError(`${work} holds a run at a checkpoint: continue it with --resume, or start over with --fresh`);
  if (v.resume && !fs.existsSync(stateFile)) throw new UsageError(`--resume: ${work} has no checkpoint (state.json); start without --resume`);
  fs.mkdirSync(work, { recursive: true });
  const fresh: Settings = {
    from: path.resolve(v.from!),
    steps: Number(v.steps),
    batchTokens: Number(v['batch-tokens']),
    lr: Number(v.lr),
    seed: SEED,
    agentShare: Number(v['agent-share']),
    maxTokens: Number(v.context),
    maxNoteLines: Number(v['max-note-lines']),
    toolShare: Number(v['tool-share']),
    agentContextWeight: 0.01,
  };
  const state: State = v.resume ? JSON.parse(fs.readFileSync(stateFile, 'utf8')) : { step: 0, index: 0, elapsedMs: 0, tokens: 0, settings: fresh, history: [] };
  // A resumed run keeps its stream and schedule; only --steps may grow it.
  const s: Settings = { ...state.settings, steps: v.resume ? Math.max(state.settings.steps, Number(v.steps)) : fresh.steps };
  state.settings = s;

  await initBackend(undefined, { log });
  const kb = JSON.parse(fs.readFileSync(path.join(ROOT, 'resources/tasks/knowledge-base.json'), 'utf8')) as KnowledgeBase;
  const template = new ChatTemplate(fs.readFileSync(path.join(ROOT, 'resources/chat-templates/clawloop.jinja'), 'utf8'), {
    eos_token: '<|im_end|>',
    pad_token: '<|endoftext|>',
  });
  const tokenizer = TextTokenizer.fromDir(s.from);
  const lm = loadModel(s.from, v.resume ? weightsFile : path.join(s.from, 'model.safetensors'), s.maxTokens);
  lm.setTrainable(true);
  const opt = new AdamW(lm.parameters(), { lr: s.lr, weightDecay: 0.1, beta1: 0.9, beta2: 0.95, maxGradNorm: 1 }, { decays: (n) => !/norm|bias/.test(n) });
  if (v.resume && fs.existsSync(optFile)) opt.load(optFile);
  const stream = new AgentStream(kb, template, tokenizer, s);
  stream.skipTo(state.index);
  log(`${v.resume ? `resuming at step ${state.step}` : `starting from ${s.from}`}: to step ${s.steps}, ${s.batchTokens} tokens a step, context ${s.maxTokens}`);
  const save = async () => {
    writeSafetensors(`${weightsFile}.tmp`, await lm.exportTensors(), { format: 'pt' });
    fs.renameSync(`${weightsFile}.tmp`, weightsFile);
    await opt.save(optFile);
    writeJson(stateFile, state);
  };
  while (state.step < s.steps) {
    const t0 = performance.now();
    const batch = nextBatch(stream, s.batchTokens);
    const lr = learningRate(s, state.step);
    const g = await batchGradients(lm, batch);
    const info = await opt.apply(g.grads, lr);
    lm.weightsChanged();
    if (info.skipped) log(`step ${state.step}: non-finite gradients, step skipped`);
    const tokens = batch.reduce((n, e) => n + e.ids.length, 0);
    const ms = performance.now() - t0;
    state.step++;
    state.index = stream.index;
    state.tokens += tokens;
    state.elapsedMs += ms;
    const entry = { step: state.step, loss: g.loss, agentLoss: g.agentLoss, lr, tokensPerS: tokens / (ms / 1000), elapsedS: state.elapsedMs / 1000 };
    state.history.push(entry);
    const longest = Math.max(...batch.map((e) => e.ids.length));
    log(
      `step ${state.step}/${s.steps} loss ${g.loss.toFixed(4)} agent ${g.agentLoss?.toFixed(4) ?? '-'} lr ${lr.toExponential(2)} ` +
        `${tokens} tokens (${batch.length} seqs, longest ${longest}) in ${(ms / 1000).toFixed(1)} s, ${(state.elapsedMs / 60000).toFixed(1)} min`,
    );
    if (state.step % Number(v['save-every']) === 0 || state.step === s.steps) await save();
  }
  const out = path.resolve(v.out ?? path.join(work, 'model'));
  await writeModelFolder(out, lm, s, state);
  log(`wrote ${out}`);
}

await main().catch((err: unknown) => {
  if (!(err instanceof UsageError)) throw err;
  console.error(err.message);
  process.exit(2);
});
