import fs from 'node:fs';
import path from 'node:path';
import { Model } from '../engine/index.js';
import type { JudgeSpec } from '../protocol/training.js';
import { EndpointJudgeBackend, ModelJudgeBackend, type JudgeBackend } from './judge.js';
import { loadJudgePrompts, type JudgePrompts } from './judgePrompts.js';
import { modelTrainingDefaults } from './trainingConfig.js';
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
 * local model folder ('model'; a relative path is inside the served model's folder), or an
 * OpenAI-compatible endpoint ('endpoint').
 */
export async function loadJudge(spec: JudgeSpec, baseModel: Model, baseModelDir: string): Promise<JudgeSetup> {
  if (spec.kind === 'base') {
    return { backend: new ModelJudgeBackend(baseModel, 'base model (adapter off)'), prompts: loadJudgePrompts(baseModelDir), model: null };
  }
  if (spec.kind === 'model') {
    // A relative folder is the served model's own judge (the bundled model's is `judge`), which
    // may share the served model's tokenizer instead of carrying a copy.
    const dir = path.resolve(baseModelDir, spec.dir);
    const model = await Model.load(dir, path.isAbsolute(spec.dir) ? {} : { tokenizerDir: baseModelDir });
    try {
      return { backend: new ModelJudgeBackend(model, `model ${dir}`), prompts: loadJudgePrompts(dir), model };
    } catch (err) {
      model.dispose();
      throw err;
    }
  }
  return {
    backend: new EndpointJudgeBackend(spec.url, spec.api_key ?? null, spec.model, (spec.timeout_s ?? 120) * 1000),
    prompts: loadJudgePrompts(null),
    model: null,
  };
}

/**
 * Loads the judge the configuration names at start. A judge that no longer loads (a moved model
 * folder) never stops the trainer: it judges with the base model instead, and says why (log, status,
 * an `error` event) until the user chooses another judge. A stored judge inside the folder of the
 * model the settings were made with (a relative `dir`), which the served model does not have,
 * belonged to that model: it gives way to the served model's recommended judge, with a log line.
 */
export async function startJudge(ctx: TrainerContext): Promise<void> {
  const recommended = modelTrainingDefaults(ctx.opts.modelDir).judge;
  const j = ctx.config.judge;
  if (j.kind === 'model' && !path.isAbsolute(j.dir) && !fs.existsSync(path.resolve(ctx.opts.modelDir, j.dir))) {
    ctx.log(
      `the stored judge '${j.dir}' was a folder of the model these settings were made with, and ${ctx.opts.modelDir} has none: judging with ${judgeName(recommended)}, as this model recommends`,
    );
    ctx.applyConfig({ ...ctx.config, judge: recommended });
    ctx.store.saveConfig(ctx.config);
  }
  // Stored settings win over the model's recommended ones: say so when that leaves out its judge
  // (a data folder made before the model shipped one keeps judging with the model itself).
  if (!sameJudge(ctx.config.judge, recommended)) {
    ctx.log(
      `judging with ${judgeName(ctx.config.judge)}, as the stored settings say; this model recommends ${judgeName(recommended)} ` +
        `(set it with PUT /api/training/config {"judge": ${JSON.stringify(recommended)}}, or clawloop serve --reset-training-config)`,
    );
  }
  try {
    ctx.useJudge(await loadJudge(ctx.config.judge, ctx.model, ctx.opts.modelDir));
  } catch (err) {
    const message = `the configured judge does not load (${(err as Error).message}); judging with the base model until another judge is set (PUT /api/training/config, or clawloop serve --reset-training-config)`;
    ctx.setError(message);
    ctx.log(message);
    ctx.emit({ type: 'event', event: { event: 'error', data: { where: 'judge', message } } });
    ctx.applyConfig({ ...ctx.config, judge: { kind: 'base' } });
    ctx.useJudge(await loadJudge(ctx.config.judge, ctx.model, ctx.opts.modelDir));
  }
}

function sameJudge(a: JudgeSpec, b: JudgeSpec): boolean {
  if (a.kind === 'model' && b.kind === 'model') return a.dir === b.dir;
  if (a.kind === 'endpoint' && b.kind === 'endpoint') return a.url === b.url && a.model === b.model;
  return a.kind === b.kind;
}

function judgeName(j: JudgeSpec): string {
  if (j.kind === 'base') return 'the served model (adapter off)';
  return j.kind === 'model' ? `the model in ${j.dir}` : `${j.model} at ${j.url}`;
}
