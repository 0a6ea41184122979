import * as tf from '@tensorflow/tfjs-core';
import { readSafetensors } from '../formats/safetensors.js';
import { writeSafetensors } from '../formats/safetensorsWrite.js';
import { readFloats } from '../model/tensorRead.js';
import { adamwUpdate, type AdamWRule } from './adamwUpdate.js';

/** AdamW hyper-parameters; defaults follow docs/learning-loop.md §5 (LoRA). */
export interface AdamWConfig {
  /** Learning rate. Default 1e-4 (LoRA); use 1e-5 for full fine-tuning. */
  lr: number;
  /** First-moment decay. Default 0.9. */
  beta1: number;
  /** Second-moment decay. Default 0.98. */
  beta2: number;
  /** Added to the denominator for stability. Default 1e-8. */
  eps: number;
  /** Decoupled weight decay (p ← p·(1 − lr·wd)). Default 0.1; 0 turns it off. */
  weightDecay: number;
  /** Clip the global gradient norm to this value. Default 1.0; 0 turns clipping off. */
  maxGradNorm: number;
}

export const DEFAULT_ADAMW: AdamWConfig = { lr: 1e-4, beta1: 0.9, beta2: 0.98, eps: 1e-8, weightDecay: 0.1, maxGradNorm: 1.0 };

export interface StepInfo {
  /** Global L2 norm of the gradients before clipping. */
  gradNorm: number;
  /** Whether clipping scaled the gradients down. */
  clipped: boolean;
  /** True when the gradients held NaN/Inf: nothing was changed. */
  skipped: boolean;
}

export class OptimizerError extends Error {
  override name = 'OptimizerError';
}

/** √(Σ‖g‖²) over all gradients: per-tensor sums in float32, the total in float64, in name order. */
async function globalNorm(params: Map<string, tf.Variable>, grads: Map<string, tf.Tensor>): Promise<number> {
  const names = [...params.keys()].sort();
  const values = await readFloats(tf.tidy(() => tf.stack(names.map((n) => tf.sum(tf.square(grads.get(n)!))))));
  let total = 0;
  for (const v of values) total += v;
  return Math.sqrt(total);
}

/**
 * AdamW with decoupled weight decay and global gradient-norm clipping, with the update rule of
 * torch.optim.AdamW and torch.nn.utils.clip_grad_norm_ (checked against PyTorch fixtures).
 */
export class AdamW {
  private cfg: AdamWConfig;
  private readonly m = new Map<string, tf.Tensor>();
  private readonly v = new Map<string, tf.Tensor>();
  private t = 0;

  /**
   * @param opts.decays which parameters get weight decay (default: all). Training from scratch
   *   usually exempts norm weights and biases: `(name) => !/norm|bias/.test(name)`.
   */
  constructor(
    private readonly params: Map<string, tf.Variable>,
    config: Partial<AdamWConfig> = {},
    private readonly opts: { decays?: (name: string) => boolean } = {},
  ) {
    this.cfg = AdamW.validate({ ...DEFAULT_ADAMW, ...config });
  }

  private static validate(c: AdamWConfig): AdamWConfig {
    if (!(c.lr >= 0)) throw new OptimizerError(`lr is ${c.lr}; expected >= 0`);
    if (!(c.beta1 >= 0 && c.beta1 < 1 && c.beta2 >= 0 && c.beta2 < 1))
      throw new OptimizerError(`betas (${c.beta1}, ${c.beta2}) must be in [0, 1)`);
    if (!(c.eps > 0)) throw new OptimizerError(`eps is ${c.eps}; expected > 0`);
    if (!(c.weightDecay >= 0)) throw new OptimizerError(`weight decay is ${c.weightDecay}; expected >= 0`);
    if (!(c.maxGradNorm >= 0)) throw new OptimizerError(`max grad norm is ${c.maxGradNorm}; expected >= 0 (0 = off)`);
    return c;
  }

  /** Changes hyper-parameters for the following steps; the moments are kept. */
  configure(patch: Partial<AdamWConfig>): void {
    this.cfg = AdamW.validate({ ...this.cfg, ...patch });
  }

  /** Completed steps. */
  get step(): number {
    return this.t;
  }

  /**
   * Applies one update from `grads` (keyed like the parameters) and disposes them. A NaN/Inf
   * gradient norm skips the step and leaves parameters and state untouched.
   * @param lr overrides the configured learning rate for this step (schedules).
   */
  async apply(grads: Map<string, tf.Tensor>, lr = this.cfg.lr): Promise<StepInfo> {
    try {
      for (const name of this.params.keys()) if (!grads.has(name)) throw new OptimizerError(`no gradient for parameter '${name}'`);
      const gradNorm = await globalNorm(this.params, grads);
      if (!Number.isFinite(gradNorm)) return { gradNorm, clipped: false, skipped: true };
      const { beta1: b1, beta2: b2, eps, weightDecay: wd, maxGradNorm } = this.cfg;
      const coef = maxGradNorm > 0 ? maxGradNorm / (gradNorm + 1e-6) : 1;
      const clipped = coef < 1;
      this.t += 1;
      const bc1 = 1 - b1 ** this.t;
      const bc2 = 1 - b2 ** this.t;
      for (const [name, p] of this.params) {
        const decay = wd > 0 && (this.opts.decays?.(name) ?? true) ? 1 - lr * wd : 1;
        const rule: AdamWRule = { beta1: b1, beta2: b2, eps, coef: clipped ? coef : 1, decay, sqrtBc2: Math.sqrt(bc2), step: lr / bc1 };
        const [m, v] = tf.tidy(() => {
          const [p1, m1, v1] = adamwUpdate(p, grads.get(name)!, this.m.get(name) ?? null, this.v.get(name) ?? null, rule);
          p.assign(p1);
          return [m1, v1];
        });
        this.m.get(name)?.dispose();
        this.v.get(name)?.dispose();
        this.m.set(name, m);
        this.v.set(name, v);
      }
      return { gradNorm, clipped, skipped: false };
    } finally {
      for (const g of grads.values()) g.dispose();
    }
  }

  /** Writes moments and step count to a safetensors file (atomically). */
  async save(file: string): Promise<void> {
    const names = [...this.m.keys()];
    const moments = await Promise.all(names.flatMap((n) => [this.m.get(n)!.data(), this.v.get(n)!.data()]));
    const tensors: Array<{ name: string; shape: number[]; data: Float32Array }> = [];
    names.forEach((name, i) => {
      const shape = [...this.m.get(name)!.shape];
      tensors.push({ name: `m.${name}`, shape, data: moments[2 * i] as Float32Array });
      tensors.push({ name: `v.${name}`, shape, data: moments[2 * i + 1] as Float32Array });
    });
    writeSafetensors(file, tensors, { step: String(this.t), config: JSON.stringify(this.cfg) });
  }

  /** Restores moments and step count saved by {@link save}; shapes must match the parameters. */
  load(file: string): void {
    const { tensors, metadata } = readSafetensors(file);
    const step = Number(metadata.step);
    if (!Number.isInteger(step) || step < 0) throw new OptimizerError(`${file}: missing or invalid step count in metadata`);
    const m = new Map<string, tf.Tensor>();
    const v = new Map<string, tf.Tensor>();
    try {
      if (step > 0) {
        for (const [name, p] of this.params) {
          const tm = tensors.get(`m.${name}`);
          const tv = tensors.get(`v.${name}`);
          if (!tm || !tv) throw new OptimizerError(`${file}: no optimizer state for parameter '${name}'`);
          if (tm.data.length !== p.size || tv.data.length !== p.size)
            throw new OptimizerError(`${file}: optimizer state for '${name}' has the wrong size`);
          m.set(name, tf.tensor(tm.data, p.shape));
          v.set(name, tf.tensor(tv.data, p.shape));
        }
      }
    } catch (err) {
      for (const t of [...m.values(), ...v.values()]) t.dispose();
      throw err;
    }
    this.dispose();
    for (const [k, t] of m) this.m.set(k, t);
    for (const [k, t] of v) this.v.set(k, t);
    this.t = step;
  }

  /** Frees the moment tensors (the parameters belong to their owner). */
  dispose(): void {
    for (const t of [...this.m.values(), ...this.v.values()]) t.dispose();
    this.m.clear();
    this.v.clear();
    this.t = 0;
  }
}
