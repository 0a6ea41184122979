/**
 * Training controls: pause and resume, and the learning settings (method and the knobs a person
 * tunes). A change is validated against the contract's own schema before it is sent, and each
 * field's error is shown next to it.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { TrainingConfigPatchSchema, TRAIN_METHODS } from '../../main/protocol/training.js';
import { rangeText, TRAINING_RANGES } from '../../main/protocol/trainingRanges.js';
import type { ApiClient } from '../api/client.js';
import type { TrainingConfig, TrainingConfigPatch, TrainingStatus } from '../api/contract.js';
import { ApiRequestError } from '../api/transport.js';

export type FieldKind = 'method' | 'int' | 'number' | 'int?' | 'number?';

export interface TrainingField {
  key: keyof TrainingConfig;
  label: string;
  kind: FieldKind;
  help: string;
}

/** The settings the forms show, in order; the first `KEY_FIELDS` are on the dashboard. */
export const TRAINING_FIELDS: readonly TrainingField[] = [
  {
    key: 'method',
    label: 'Method',
    kind: 'method',
    help: 'combine: judge rewards and hints · rl: rewards · opd: hints · off: record only',
  },
  { key: 'batch_size', label: 'Batch size', kind: 'int', help: 'samples per optimizer step' },
  { key: 'learning_rate', label: 'Learning rate', kind: 'number', help: 'AdamW learning rate of the LoRA adapter' },
  { key: 'w_rl', label: 'RL weight', kind: 'number', help: 'weight of the reward term (combine)' },
  { key: 'w_opd', label: 'Hint weight', kind: 'number', help: 'weight of the hint (OPD) term (combine)' },
  { key: 'kl_coef', label: 'KL coefficient', kind: 'number?', help: 'pull toward the base model; empty: the method’s default' },
  { key: 'max_staleness', label: 'Max staleness', kind: 'int?', help: 'versions a sample may lag; empty: keep all' },
  { key: 'keep_checkpoints', label: 'Checkpoints kept', kind: 'int', help: 'besides pinned ones' },
  { key: 'lora_rank', label: 'LoRA rank', kind: 'int', help: 'changeable while the base model is live' },
  { key: 'votes', label: 'Judge votes', kind: 'int?', help: 'empty: 3 for rl, 1 otherwise' },
] as const;
export const KEY_FIELDS = 6;
/** The key settings the Dashboard shows. */
export const KEY_TRAINING_FIELDS = TRAINING_FIELDS.slice(0, KEY_FIELDS);

export const METHODS = TRAIN_METHODS;

export interface TrainingState {
  config: TrainingConfig | null;
  loadError: string | null;
  saving: boolean;
  saveMessage: string | null;
  fieldErrors: Record<string, string>;
  toggling: boolean;
  toggleError: string | null;

  load(): Promise<void>;
  /** Validates form values (strings) for `fields` and sends the ones that changed. */
  save(values: Record<string, string>, fields?: readonly TrainingField[]): Promise<boolean>;
  setPaused(paused: boolean): Promise<TrainingStatus | null>;
}

export type TrainingStore = StoreApi<TrainingState>;

/** What is wrong with a typed number, in words, or null: a number, whole where it must be, within the field's sane range. */
export function numberProblem(f: TrainingField, v: string): string | null {
  const x = Number(v);
  const orEmpty = f.kind.endsWith('?') ? ' (or leave it empty for the default)' : '';
  if (v === '' || !Number.isFinite(x)) return `${f.label} needs a number${orEmpty}; “${v}” is not one.`;
  const range = TRAINING_RANGES[f.key];
  const whole = range?.integer || f.kind.startsWith('int');
  if (whole && !Number.isInteger(x)) return `${f.label} needs a whole number; you typed ${v}.`;
  if (range && (x < range.min || x > range.max)) return `${f.label} must be from ${rangeText(range)}; you typed ${v}. Why: ${range.why}.`;
  return null;
}

/** Turns form strings into a patch of changed fields; errors name the field in words. */
export function patchFromForm(
  values: Record<string, string>,
  config: TrainingConfig,
  fields: readonly TrainingField[],
): { patch: TrainingConfigPatch; errors: Record<string, string> } {
  const raw: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const v = (values[f.key] ?? '').trim();
    if (f.kind === 'method') raw[f.key] = v;
    else if (v === '' && f.kind.endsWith('?')) raw[f.key] = null;
    else {
      const problem = numberProblem(f, v);
      if (problem) errors[f.key] = problem;
      else raw[f.key] = Number(v);
    }
  }
  const changed = Object.fromEntries(
    Object.entries(raw).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(config[k as keyof TrainingConfig])),
  );
  const parsed = TrainingConfigPatchSchema.safeParse(changed);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? 'form');
      const label = fields.find((f) => f.key === key)?.label ?? key;
      errors[key] ??= `${label} was not accepted (${issue.message.replace(/^Invalid input: /, '')}).`;
    }
  }
  return { patch: parsed.success ? parsed.data : {}, errors };
}

export function createTrainingStore(api: ApiClient, onStatus: (s: TrainingStatus) => void): TrainingStore {
  return createStore<TrainingState>()((set, get) => ({
    config: null,
    loadError: null,
    saving: false,
    saveMessage: null,
    fieldErrors: {},
    toggling: false,
    toggleError: null,

    async load() {
      try {
        set({ config: await api.trainingConfig(), loadError: null });
      } catch (err) {
        set({ loadError: `Could not load the training settings: ${(err as Error).message}` });
      }
    },

    save: (values, fields = TRAINING_FIELDS) => save(api, set, get, values, fields),

    async setPaused(paused) {
      set({ toggling: true, toggleError: null });
      try {
        const s = paused ? await api.pauseTraining() : await api.resumeTraining();
        onStatus(s);
        return s;
      } catch (err) {
        set({ toggleError: `Could not ${paused ? 'pause' : 'resume'} training: ${(err as Error).message}` });
        return null;
      } finally {
        set({ toggling: false });
      }
    },
  }));
}

/** Checks the form, sends what changed, and puts the core's refusal on the field it names. */
async function save(
  api: ApiClient,
  set: TrainingStore['setState'],
  get: TrainingStore['getState'],
  values: Record<string, string>,
  fields: readonly TrainingField[],
): Promise<boolean> {
  const config = get().config;
  if (!config) return false;
  const { patch, errors } = patchFromForm(values, config, fields);
  if (Object.keys(errors).length) {
    const names = fields.filter((f) => errors[f.key]).map((f) => f.label);
    set({
      fieldErrors: errors,
      saveMessage: `Nothing was saved: ${names.join(', ') || 'a field'} ${names.length > 1 ? 'need' : 'needs'} fixing (the reason is next to it).`,
    });
    return false;
  }
  if (!Object.keys(patch).length) {
    set({ fieldErrors: {}, saveMessage: 'No setting changed.' });
    return true;
  }
  set({ saving: true, saveMessage: null, fieldErrors: {} });
  try {
    const next = await api.saveTrainingConfig(patch);
    set({ config: next, saveMessage: `Saved: ${Object.keys(patch).join(', ')}.` });
    return true;
  } catch (err) {
    const e = err as Error;
    const param = err instanceof ApiRequestError ? err.param : null;
    set({ saveMessage: `Not saved: ${e.message}`, fieldErrors: param ? { [param]: e.message } : {} });
    return false;
  } finally {
    set({ saving: false });
  }
}
