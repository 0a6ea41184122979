import { projectionDims, projectionModule, PROJECTIONS } from '../../../model/config.js';
import type { CausalLM } from '../../../model/causalLM.js';
import { PackedWeight } from '../../../model/packedWeight.js';
import type { GpuContext } from '../gpuContext.js';
import { columnsPerLoad, type GemvFormat } from './gemvWgsl.js';

/*
 * What the GPU decoder needs of a model and a device; anything else decodes on the tfjs path.
 */

/** Workgroup memory the column GEMV's reduction takes at most (SwiGLU over 16-bit weights). */
const GEMV_WORKGROUP_BYTES = 4 * 256 * 16;

/** Why `lm` cannot decode on the GPU path for `capacity` positions on `ctx`'s device, or null. */
export function decodeUnsupported(ctx: GpuContext, lm: CausalLM, capacity: number): string | null {
  const c = lm.config;
  if (lm.layout !== 'inOut') return `the model holds its weights in the '${lm.layout}' layout; the decoder reads 'inOut'`;
  const q = c.numHeads * c.headDim;
  const kv = c.numKvHeads * c.headDim;
  const dims: Array<[string, number]> = [
    ['hidden_size', c.hiddenSize],
    ['intermediate_size', c.intermediateSize],
    ['num_attention_heads × head_dim', q],
    ['num_key_value_heads × head_dim', kv],
    ['vocab_size', c.vocabSize],
  ];
  for (const [name, n] of dims) if (n % 8 !== 0) return `${name} is ${n}; the decoder's 16-byte loads need a multiple of 8`;
  const limits = ctx.device.limits;
  if (limits.maxComputeWorkgroupStorageSize < GEMV_WORKGROUP_BYTES)
    return `the device offers ${limits.maxComputeWorkgroupStorageSize} bytes of workgroup memory; the decoder needs ${GEMV_WORKGROUP_BYTES}`;
  const formats = new Map<string, GemvFormat>();
  const packed = lm.packedWeights();
  const bytes: Array<[string, number]> = [];
  const shapes = projectionDims(c);
  for (let l = 0; l < c.numLayers; l++) {
    for (const p of PROJECTIONS) {
      const w = packed.get(`model.layers.${l}.${projectionModule(p)}.${p}.weight`);
      formats.set(`${l}.${p}`, w instanceof PackedWeight ? w.format : 'f32');
      bytes.push([p, shapes[p][0] * shapes[p][1] * (w ? 2 : 4)]);
    }
    const f = (p: string) => formats.get(`${l}.${p}`);
    if (f('q_proj') !== f('k_proj') || f('q_proj') !== f('v_proj'))
      return `layer ${l} stores q, k and v in different formats; the fused QKV product reads one`;
    if (f('gate_proj') !== f('up_proj')) return `layer ${l} stores gate and up in different formats; the fused SwiGLU product reads one`;
  }
  bytes.push(
    ['lm_head', c.vocabSize * c.hiddenSize * 4],
    ['kv cache (per layer)', capacity * kv * 4],
    ['attention scores', c.numHeads * capacity * 4],
  );
  for (const [what, n] of bytes) {
    if (n > ctx.maxBinding)
      return `the ${what} takes ${(n / 2 ** 20).toFixed(1)} MiB; this device binds at most ${(ctx.maxBinding / 2 ** 20).toFixed(1)} MiB at once`;
  }
  // The most workgroups one product takes: the head by rows (8 a workgroup), or 4 column threads of 4 values.
  const widest = Math.ceil(Math.max(c.vocabSize / 8, (q + 2 * kv) / columnsPerLoad('f32') / 4));
  if (widest > ctx.maxWorkgroups) return `a product needs ${widest} workgroups; the device dispatches at most ${ctx.maxWorkgroups}`;
  return null;
}
