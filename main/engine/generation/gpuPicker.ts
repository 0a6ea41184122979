import * as tf from '@tensorflow/tfjs-core';
import { GpuDecoder } from '../backends/webgpu/decode/gpuDecoder.js';
import type { CausalLM } from '../model/causalLM.js';
import { validateSampling } from './sampling.js';
import type { PickerOptions, TokenPick, TokenPicker } from './tokenPicks.js';
import { PREFILL_CHUNK } from './tokenSteps.js';

/**
 * Whether generation may decode with the GPU decoder (CLAWLOOP_GPU_DECODE: 'auto', the default,
 * where it applies; '0' never, to compare with the tfjs path). Throws on other values.
 */
export function gpuDecodeEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env.CLAWLOOP_GPU_DECODE?.trim().toLowerCase() || 'auto';
  if (raw === 'auto' || raw === '1') return true;
  if (raw === '0') return false;
  throw new Error(`CLAWLOOP_GPU_DECODE is '${env.CLAWLOOP_GPU_DECODE}'; valid: auto (default), 1, 0`);
}

/** The prompt prefilled by the tfjs model, then every token decoded and sampled by the GPU decoder. */
class GpuPicker implements TokenPicker {
  readonly reused = 0;
  constructor(
    private readonly lm: CausalLM,
    private readonly decoder: GpuDecoder,
  ) {}

  async first(promptIds: readonly number[]): Promise<TokenPick> {
    const cache = this.decoder.prefillCache;
    const chunks: number[][] = [];
    for (let i = 0; i < promptIds.length; i += PREFILL_CHUNK) chunks.push(promptIds.slice(i, i + PREFILL_CHUNK));
    let hidden: tf.Tensor | null = null;
    for (const [i, chunk] of chunks.entries()) {
      const h = tf.tidy(() => this.lm.hidden(tf.tensor2d(chunk, [1, chunk.length], 'int32'), { cache }));
      if (i === chunks.length - 1) hidden = h;
      else h.dispose();
    }
    try {
      return await this.decoder.first(hidden!);
    } finally {
      hidden!.dispose();
    }
  }

  next(id: number): Promise<TokenPick> {
    return this.decoder.next(id);
  }

  close(): void {
    this.decoder.dispose();
  }
}

/**
 * A picker on the GPU decoder when it applies: the 'webgpu' backend, no adapter, no batcher, no
 * prefix cache, no top log-probs (those need the logits), and a model the decoder supports; else
 * null (generation then reads logits back). `capacity` is the prompt plus the new tokens.
 */
export async function gpuPicker(lm: CausalLM, capacity: number, opts: PickerOptions): Promise<TokenPicker | null> {
  if (opts.adapter || opts.batcher || opts.prefixCache || opts.topN > 0 || !gpuDecodeEnabled()) return null;
  if (GpuDecoder.unsupported(lm, capacity)) return null;
  const { temperature, topP, topK } = validateSampling(opts);
  return new GpuPicker(lm, await GpuDecoder.open(lm, capacity, { temperature, topP, topK }, opts.seed));
}
