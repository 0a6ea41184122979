import fs from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_TRAINING_CONFIG,
  LORA_SHAPE_FIELDS,
  TrainingConfigPatchSchema,
  TrainingConfigSchema,
  type TrainingConfig,
} from '../protocol/training.js';

/** A configuration change the trainer cannot take; `field` names the offending field. */
export class TrainingConfigError extends Error {
  override name = 'TrainingConfigError';
  constructor(
    message: string,
    readonly field: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** Validates a configuration patch and merges it; errors name the field. */
export function mergeTrainingConfig(base: TrainingConfig, patch: unknown): TrainingConfig {
  const p = TrainingConfigPatchSchema.safeParse(patch);
  if (!p.success) {
    const issue = p.error.issues[0];
    const field =
      issue.path.map(String).join('.') ||
      (issue.code === 'unrecognized_keys' ? ((issue as { keys?: string[] }).keys?.[0] ?? 'body') : 'body');
    throw new TrainingConfigError(`invalid training configuration: ${field}: ${issue.message}`, field);
  }
  const merged = TrainingConfigSchema.parse({ ...base, ...p.data });
  if (merged.eps_low >= 1) throw new TrainingConfigError('eps_low must be below 1', 'eps_low');
  return merged;
}

/**
 * Refuses a change of the LoRA shape (rank, alpha, targets, dropout) while a trained adapter is
 * live: the adapter's tensors fix it.
 */
export function checkLoraShapeUnchanged(current: TrainingConfig, next: TrainingConfig): void {
  for (const f of LORA_SHAPE_FIELDS) {
    if (JSON.stringify(next[f]) !== JSON.stringify(current[f])) {
      throw new TrainingConfigError(
        `${f} cannot change while a trained adapter is live (it fixes the adapter's shape); roll back to the base model first: POST /api/checkpoints/base/rollback`,
        f,
        409,
      );
    }
  }
}

/**
 * Settings of experiments that were not shipped and have since been removed, with the record that
 * says why. A stored configuration or a model folder's recommendations that still name one load
 * without it.
 */
export const RETIRED_SETTINGS: Readonly<Record<string, string>> = {
  lr_backoff: 'docs/experiments/004-style-ceiling.md',
  replay_samples: 'docs/experiments/011-gate-per-family.md',
  teacher_rollouts: 'docs/experiments/009-teacher-rollouts.md',
  competence_confirm: 'docs/experiments/019-close-calls-whole-set.md',
};

/** `raw` without the retired settings, and a sentence for each one that was on (not 0, null or false). */
export function dropRetiredSettings(raw: unknown): { config: unknown; dropped: string[] } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { config: raw, dropped: [] };
  const config: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const dropped: string[] = [];
  for (const [key, record] of Object.entries(RETIRED_SETTINGS)) {
    if (!(key in config)) continue;
    const value = config[key];
    delete config[key];
    if (value !== 0 && value !== null && value !== false) {
      dropped.push(`the setting ${key} = ${JSON.stringify(value)} was removed (not shipped: ${record}); training goes on without it`);
    }
  }
  return { config, dropped };
}

/**
 * A model folder may recommend training settings in `clawloop_training.json` (any subset of the
 * training configuration, e.g. a higher learning rate for a small model). They replace the
 * built-in defaults for a fresh data folder; settings stored by an earlier run and command-line
 * flags still win.
 */
export const TRAINING_DEFAULTS_FILE = 'clawloop_training.json';

/** The built-in defaults with the model folder's recommendations applied. */
export function modelTrainingDefaults(modelDir: string): TrainingConfig {
  const file = path.join(modelDir, TRAINING_DEFAULTS_FILE);
  if (!fs.existsSync(file)) return DEFAULT_TRAINING_CONFIG;
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new TrainingConfigError(`${file}: not valid JSON (${(err as Error).message})`, 'body');
  }
  try {
    return mergeTrainingConfig(DEFAULT_TRAINING_CONFIG, dropRetiredSettings(raw).config);
  } catch (err) {
    if (err instanceof TrainingConfigError) throw new TrainingConfigError(`${file}: ${err.message}`, err.field);
    throw err;
  }
}
