import path from 'node:path';
import { Model } from '../engine/index.js';
import type { JudgeSpec } from '../protocol/training.js';
import { EndpointJudgeBackend, ModelJudgeBackend, type JudgeBackend } from './judge.js';
import { loadJudgePrompts, type JudgePrompts } from './judgePrompts.js';
import type { TrainerContext } from './trainerContext.js';

/** The judge the trainer asks, and the prompts that fit it. */
export interface JudgeSetup {
  backend: JudgeBackend;
  prompts: JudgePrompts;
  /** A model loaded only to judge (`judge.kind` 'model'); freed when the judge is replaced or the trainer stops. */
  model: Model | null;
}

/**
 * The judge a configuration names: the served base model with its adapter off ('base'), another
 * local model folder ('model'), or an OpenAI-compatible endpoint ('endpoint').
 */
async function loadJudge(spec: JudgeSpec, baseModel: Model, baseModelDir: string): Promise<JudgeSetup> {
  if (spec.kind === 'base') {
    return { backend: new ModelJudgeBackend(baseModel, 'base model (adapter off)'), prompts: loadJudgePrompts(baseModelDir), model: null };
  }
  if (spec.kind === 'model') {
    const model = await Model.load(spec.dir);
    try {
      return { backend: new ModelJudgeBackend(model, `model ${path.resolve(spec.dir)}`), prompts: loadJudgePrompts(spec.dir), model };
    } catch (err) {
      model.dispose();
      throw err;
    }
  }
  return { backend: new EndpointJudgeBackend(spec.url, spec.api_key ?? null, spec.model), prompts: loadJudgePrompts(null), model: null };
}

/** Replaces the trainer's judge with the one its configuration names, freeing a judge model it loaded. */
export async function replaceJudge(ctx: TrainerContext): Promise<void> {
  ctx.judge?.model?.dispose();
  ctx.judge = await loadJudge(ctx.config.judge, ctx.model, ctx.opts.modelDir);
}
