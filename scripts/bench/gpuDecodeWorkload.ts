import * as tf from '@tensorflow/tfjs-core';
import { GpuDecoder } from '../../main/engine/backends/webgpu/decode/gpuDecoder.js';
import type { CausalLM } from '../../main/engine/model/causalLM.js';
import { benchTokens, type GpuWorkload } from './gpuBenchShapes.js';

/**
 * Greedy decoding at batch 1 on the GPU decoder (outside tfjs; main/engine/backends/webgpu/decode/):
 * `tokens` tokens after a `prompt`-token prefill, the median of `iters` runs after one warm-up.
 * Throws the decoder's reason when it does not apply to the model.
 */
export async function decodeOutsideTfjs(lm: CausalLM, w: GpuWorkload['decode'], iters: number): Promise<number> {
  const capacity = w.prompt + w.tokens + 1;
  const why = GpuDecoder.unsupported(lm, capacity);
  if (why) throw new Error(`the GPU decoder does not apply: ${why}`);
  const prompt = benchTokens(1, w.prompt, lm.config.vocabSize).flat();
  const times: number[] = [];
  for (let r = 0; r <= iters; r++) {
    const decoder = await GpuDecoder.open(lm, capacity, { temperature: 0, topP: 1, topK: 0 });
    try {
      const hidden = tf.tidy(() => lm.hidden(tf.tensor2d(prompt, [1, w.prompt], 'int32'), { cache: decoder.prefillCache }));
      let next = (await decoder.first(hidden)).id;
      hidden.dispose();
      const t0 = performance.now();
      for (let i = 0; i < w.tokens; i++) next = (await decoder.next(next)).id;
      if (r > 0) times.push((performance.now() - t0) / 1000); // the first run warms up
    } finally {
      decoder.dispose();
    }
  }
  return w.tokens / times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}
