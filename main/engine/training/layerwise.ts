import os from 'node:os';
import * as tf from '@tensorflow/tfjs-core';
import type { CausalLM } from '../model/causalLM.js';
import type { ModelConfig } from '../model/config.js';
import { tiledAttentionPays } from '../model/layers/attention.js';
import { FUSED, fusable } from '../ops/fusedKernels.js';
import type { Rng } from '../../util/random.js';
import type { GradientTarget } from './train.js';

/**
 * Bytes of activations a backward pass through all layers at once keeps alive, per token and
 * layer: with the fused layer kernels about ten hidden-sized tensors, four MLP-sized ones and the
 * attention probabilities over the sequence (measured: 176 KB a token a layer for Qwen3-1.7B's
 * shapes), or with the tiled attention only a log-sum-exp per head; with tfjs ops alone about
 * three times as many.
 */
export function activationBytes(c: ModelConfig, batch: number, seq: number): number {
  const tiled = tiledAttentionPays(seq, seq) && fusable(FUSED.flashAttention);
  const perToken = fusable(FUSED.rmsNorm)
    ? 10 * c.hiddenSize + 4 * c.intermediateSize + (tiled ? c.numHeads : 2 * c.numHeads * seq)
    : 30 * c.hiddenSize + 12 * c.intermediateSize + 6 * c.numHeads * seq;
  return 4 * batch * seq * c.numLayers * perToken;
}

/** Whether to checkpoint: 'auto' does when the activations would exceed a quarter of the machine's memory. */
export function useCheckpointing(mode: boolean | 'auto', c: ModelConfig, batch: number, seq: number): boolean {
  if (mode !== 'auto') return mode;
  return activationBytes(c, batch, seq) > os.totalmem() / 4;
}

/** Gradients by variable name, summed where a variable is reached twice (a tied embedding). */
class GradSum {
  readonly byName: Record<string, tf.Tensor> = {};
  add(v: tf.Variable, g: tf.Tensor | undefined): void {
    if (!g) return;
    const prev = this.byName[v.name];
    this.byName[v.name] = prev ? tf.add(prev, g) : g;
    if (prev) tf.dispose([prev, g]);
  }
}

/**
 * Loss and gradients with activation checkpointing. The forward pass keeps only each layer's input
 * ([B·T, H]); the backward pass recomputes one layer at a time (with the same dropout masks: the
 * layers' seeds are fixed in `begin`) and differentiates it alone. Intermediate activations then
 * take one layer's memory instead of every layer's, for one more forward pass of compute.
 */
export function layerwiseGradients(
  lm: CausalLM,
  ids: tf.Tensor2D,
  target: GradientTarget,
  lossOf: (hidden: tf.Tensor2D) => tf.Scalar,
  rng?: Rng,
): { value: tf.Scalar; grads: Record<string, tf.Tensor> } {
  const engine = tf.engine();
  const adapter = target === 'full' ? null : target.adapter;
  const full = target === 'full' ? lm.parameters() : null;
  const sum = new GradSum();
  const { x: x0, run } = lm.begin(ids, { adapter, training: true, rng });
  try {
    const inputs: tf.Tensor[] = [x0];
    for (let l = 0; l < lm.config.numLayers; l++) inputs.push(tf.tidy(() => lm.layer(l, inputs[l], run)));
    const headVars = full ? ['model.embed_tokens.weight', 'model.norm.weight', 'lm_head.weight'].flatMap((n) => (full.has(n) ? [full.get(n)!] : [])) : [];
    const last = inputs.pop()!; // the last layer's output
    const top = engine.gradients(() => lossOf(lm.normalize(last)), [last, ...headVars], undefined, true);
    last.dispose();
    headVars.forEach((v, i) => sum.add(v, top.grads[i + 1]));
    let dy = top.grads[0];
    for (let l = lm.config.numLayers - 1; l >= 0; l--) {
      const vars = [...(adapter ? adapter.layerVariables(l) : lm.layerParameters(l)).values()];
      const r = engine.gradients(() => lm.layer(l, inputs[l], run), [inputs[l], ...vars], dy, true);
      tf.dispose([r.value, dy, inputs[l]]);
      vars.forEach((v, i) => sum.add(v, r.grads[i + 1]));
      dy = r.grads[0];
    }
    if (full) {
      const embed = full.get('model.embed_tokens.weight')!;
      const r = engine.gradients(() => lm.embedTokens(ids), [embed], dy, true);
      sum.add(embed, r.grads[0]);
      r.value.dispose();
    }
    dy.dispose();
    return { value: top.value, grads: sum.byName };
  } finally {
    // What every layer shared, also when a layer throws.
    tf.dispose([run.cos, run.sin]);
    run.mask.dispose();
  }
}
