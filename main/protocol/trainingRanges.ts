/**
 * The ranges the app's settings forms accept, narrower than what the API's schema allows: values
 * beyond them are legal but never sensible for the method, so the form refuses them with the reason
 * (shown on hover and in the error). The API keeps the wider schema for scripts and experiments.
 */
import type { TrainingConfig } from './training.js';

export interface SettingRange {
  min: number;
  max: number;
  /** Whole numbers only. */
  integer: boolean;
  /** Why the range is what it is, in a sentence a person can act on. */
  why: string;
}

export const TRAINING_RANGES: Partial<Record<keyof TrainingConfig, SettingRange>> = {
  batch_size: {
    min: 1,
    max: 256,
    integer: true,
    why: 'samples per step: each waits until the batch is full, so a large batch means hours of chatting between steps',
  },
  learning_rate: {
    min: 1e-6,
    max: 1e-2,
    integer: false,
    why: 'LoRA adapters learn at about 1e-5 to 1e-3 (reference 1e-4); above 1e-2 one step can undo what the adapter learned, below 1e-6 it learns nothing',
  },
  w_rl: {
    min: 0,
    max: 10,
    integer: false,
    why: 'the reward term’s weight beside the hint term’s (both 1 by default); past 10 one term drowns the other and the step grows like a larger learning rate',
  },
  w_opd: {
    min: 0,
    max: 10,
    integer: false,
    why: 'the hint term’s weight beside the reward term’s (both 1 by default); past 10 one term drowns the other and the step grows like a larger learning rate',
  },
  kl_coef: {
    min: 0,
    max: 1,
    integer: false,
    why: 'how hard each token is pulled back toward the base model (0.02 for rl); at 1 the adapter can barely move',
  },
  max_staleness: {
    min: 0,
    max: 1000,
    integer: true,
    why: 'adapter versions a sample may lag behind the live one before it is dropped',
  },
  keep_checkpoints: {
    min: 1,
    max: 1000,
    integer: true,
    why: 'each kept checkpoint is a folder on disk; pinned ones are kept besides',
  },
  lora_rank: {
    min: 1,
    max: 256,
    integer: true,
    why: 'ranks of 4 to 64 are usual; memory and step time grow with the rank',
  },
  votes: {
    min: 1,
    max: 16,
    integer: true,
    why: 'each vote is one more judge call per turn',
  },
};

/** The range in words: "0 to 10", "1e-6 to 0.01". */
export function rangeText(r: SettingRange): string {
  const n = (x: number) => (x !== 0 && Math.abs(x) < 1e-3 ? x.toExponential() : String(x));
  return `${n(r.min)} to ${n(r.max)}${r.integer ? ', whole numbers' : ''}`;
}
