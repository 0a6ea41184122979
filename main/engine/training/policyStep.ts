import type { CausalLM } from '../model/causalLM.js';
import type { LoraAdapter } from '../model/lora.js';
import type { AdamW } from './optimizer.js';
import { policyLoss, type PolicyLossConfig, type PolicyLossMetrics } from './policyLoss.js';
import { computeGradients, type TrainBatch } from './train.js';

export interface PolicyStepConfig extends PolicyLossConfig {
  /** Learning rate of this step (overrides the optimizer's configured rate, as a schedule would). */
  learningRate: number;
}

export interface PolicyStepResult {
  /** Loss terms and diagnostics of the batch, computed in the same forward pass as the gradients. */
  metrics: PolicyLossMetrics;
  /** Tokens the loss covered (masked-in response tokens). */
  tokens: number;
  /** Global gradient norm before clipping; null when the loss was not finite (the optimizer never ran). */
  gradNorm: number | null;
  /**
   * Why the adapter was left unchanged: 'loss' (the loss is NaN or infinite), 'gradients' (the
   * gradient norm is); null when the update was applied.
   */
  skipped: 'loss' | 'gradients' | null;
}

/**
 * One policy-gradient optimizer step on a LoRA adapter: the policy loss ({@link policyLoss}) and
 * its gradients on `batch`, then an AdamW update. A non-finite loss or gradient norm leaves the
 * adapter and the optimizer state untouched. Every tensor it makes is freed before it returns.
 */
export async function policyGradientStep(
  lm: CausalLM,
  adapter: LoraAdapter,
  optimizer: AdamW,
  batch: TrainBatch,
  cfg: PolicyStepConfig,
): Promise<PolicyStepResult> {
  const loss = policyLoss(cfg);
  const g = await computeGradients(lm, batch, loss.fn, { adapter });
  const metrics = await loss.takeMetrics();
  if (!Number.isFinite(g.loss)) {
    g.grads.forEach((t) => t.dispose());
    return { metrics, tokens: g.tokens, gradNorm: null, skipped: 'loss' };
  }
  const info = await optimizer.apply(g.grads, cfg.learningRate);
  return { metrics, tokens: g.tokens, gradNorm: info.gradNorm, skipped: info.skipped ? 'gradients' : null };
}
