import type { ModelConfig } from '../../main/engine/model/config.js';
import { chained, type Dtype, type ErrorModel } from './numeric.js';

/*
 * The error models (see numeric.ts) of a decoder-only transformer's outputs, counted from its
 * config: which reductions lie on the path from the input to one output, and how long they are.
 *
 * One decoder layer, for one token (T = tokens it attends to):
 *   RMSNorm (mean of h squares) → q/k/v projections (h) → [Qwen3: q/k RMSNorm (headDim)] →
 *   scores q·k (headDim) → softmax normaliser (T) → probabilities · v (T) → o_proj (heads·headDim) →
 *   RMSNorm (h) → gate/up projections (h) → down projection (intermediate)
 * RoPE, SiLU and the residual adds round once per element: one more link of length 1. A LoRA
 * adapter puts a rank-r product (x·A, then ·B) beside each of the 4 projections on the path (q/k/v,
 * o, gate/up, down): one more link of length r each. The model adds the final RMSNorm and the LM
 * head (h). The roundings of the path add up (numeric.ts keeps them as chain × mean length).
 *
 * Backward, every reduction of the forward pass has a transposed twin on the path of a gradient
 * (dX = dY·Wᵀ sums over the layer's output width, of the same order as its input width here), the
 * LM head's twin sums over the vocabulary, and a weight's gradient ends with a sum over every token
 * of the batch (dW = Xᵀ·dY). So a gradient sits at the end of the forward chain, the loss, and a
 * backward chain as long as the forward one plus those two reductions.
 */

/** What else a call site knows about the computation. */
export interface PathOptions {
  /** A LoRA adapter of this rank is applied. Default: none. */
  loraRank?: number;
  /** The arithmetic precision (float32 for every ClawLoop backend). Default float32. */
  dtype?: Dtype;
}

/** The lengths of the reductions on the forward path of one layer. */
function layerLinks(c: ModelConfig, seqLen: number, opts: PathOptions): number[] {
  const links = [
    c.hiddenSize,
    c.hiddenSize,
    c.headDim,
    seqLen,
    seqLen,
    c.numHeads * c.headDim,
    c.hiddenSize,
    c.hiddenSize,
    c.intermediateSize,
    1,
  ];
  if (c.qkNorm) links.push(c.headDim);
  if (opts.loraRank) links.push(...Array(4).fill(opts.loraRank));
  return links;
}

/**
 * The logits of a forward pass over `seqLen` tokens. The stored dtype of the weights does not
 * matter: both sides compute in float32 with the same stored values.
 */
export function logitsModel(config: ModelConfig, seqLen: number, opts: PathOptions = {}): ErrorModel {
  const links = [
    ...Array.from({ length: config.numLayers }, () => layerLinks(config, seqLen, opts)).flat(),
    config.hiddenSize,
    config.hiddenSize,
  ];
  const n = links.reduce((a, b) => a + b, 0);
  return { dtype: opts.dtype ?? 'float32', length: n / links.length, chain: links.length };
}

/**
 * Token log-probs: the logits, then log-softmax over the vocabulary. log p = logit − logsumexp, so
 * the error is relative to the logits and their logsumexp, both below the largest |log p| (the
 * default scale of assertClose).
 */
export function logprobsModel(config: ModelConfig, seqLen: number, opts: PathOptions = {}): ErrorModel {
  return chained(logitsModel(config, seqLen, opts), 1, config.vocabSize);
}

/**
 * A loss summed over `batchTokens` tokens (scale: the sum of its terms' magnitudes over the count).
 */
export function lossModel(config: ModelConfig, seqLen: number, batchTokens: number, opts: PathOptions = {}): ErrorModel {
  return chained(logprobsModel(config, seqLen, opts), 1, batchTokens);
}

/**
 * A gradient of such a loss with respect to any parameter (LoRA or full): forward, loss, then the
 * backward chain (the forward one mirrored, the LM head's twin over the vocabulary, and the sum
 * over the batch's tokens).
 */
export function gradientModel(config: ModelConfig, seqLen: number, batchTokens: number, opts: PathOptions = {}): ErrorModel {
  const forward = logitsModel(config, seqLen, opts);
  const backward = chained(lossModel(config, seqLen, batchTokens, opts), forward.chain!, forward.length);
  return chained(chained(backward, 1, config.vocabSize), 1, batchTokens);
}

/**
 * The scale of log-prob errors (for assertClose's `scale`): log p = logit − logsumexp, and the
 * logsumexp of V logits is log V above their mean, so the values whose roundings make up a log-prob
 * are at least log V in magnitude even when the chosen tokens' log-probs are near 0 (greedy picks).
 */
export function logprobScale(config: ModelConfig, logprobs: ArrayLike<number>): number {
  let top = Math.log(config.vocabSize);
  for (let i = 0; i < logprobs.length; i++) top = Math.max(top, Math.abs(logprobs[i]));
  return top;
}

/**
 * Outputs of a forward pass whose activations are rounded to bfloat16 on the way (products still
 * accumulate in float32): each rounding adds a relative error of at most u(bfloat16), whatever the
 * reduction lengths, so the path counts roundings: `perLayer` in each decoder layer, `extra` after
 * the last. (The float32 roundings of the same path are orders of magnitude smaller.)
 */
export function bf16RoundingModel(config: ModelConfig, perLayer: number, extra: number): ErrorModel {
  return { dtype: 'bfloat16', length: 1, chain: config.numLayers * perLayer + extra };
}

/**
 * The bfloat16 roundings of PyTorch's forward pass in bfloat16 (scripts/reference/model.py
 * forward_bf16), per layer: the normalised input and its product with the norm weight; q, k, v;
 * the q/k norms (Qwen3); RoPE's two products and sum; scores, their scale, the probabilities,
 * probabilities·v; o_proj and the residual; the second norm (2); gate, up, SiLU, its product
 * with up; down and the residual. Then the final norm (2) and the logits.
 */
export function pytorchBf16Roundings(config: ModelConfig): { perLayer: number; extra: number } {
  return { perLayer: 20 + (config.qkNorm ? 4 : 0), extra: 3 };
}

/** The roundings the native backend's sbgemm path adds: the inputs of q/k/v, o, gate/up and down per layer, then the head's. */
export const SBGEMM_ROUNDINGS = { perLayer: 4, extra: 1 };
