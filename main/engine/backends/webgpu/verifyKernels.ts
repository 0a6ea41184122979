import * as tf from '@tensorflow/tfjs-core';
import type { GpuContext } from './gpuContext.js';
import { chooseCoopConfig, coopPolicy } from './kernels/coopConfig.js';
import type { CoopConfig } from './kernels/coopMatmulWgsl.js';

/*
 * Kernels that use an experimental feature (cooperative matrices) cannot run in CI, which has no
 * such GPU: each is checked here, when the backend starts, against the plain kernel on a small
 * problem. A kernel that fails to compile or disagrees is not used, and the log says why.
 */

/** A·B (and Aᵀ·Bᵀ) read back, with or without the cooperative kernel. */
async function products(ctx: GpuContext, coop: CoopConfig | null): Promise<Float32Array[]> {
  ctx.coop = coop;
  try {
    const outs = tf.tidy(() => {
      const a = tf.randomUniform([128, 96], -1, 1, 'float32', 1);
      const b = tf.randomUniform([96, 192], -1, 1, 'float32', 2);
      return [tf.matMul(a, b), tf.matMul(tf.transpose(a), tf.transpose(b), true, true)];
    });
    const values = await Promise.all(outs.map((t) => t.data() as Promise<Float32Array>));
    tf.dispose(outs);
    return values;
  } finally {
    ctx.coop = null;
  }
}

/** Why `cfg`'s kernel is not usable, or null when it matches the plain kernel. */
async function checkCoop(ctx: GpuContext, cfg: CoopConfig): Promise<string | null> {
  const plain = await products(ctx, null);
  ctx.device.pushErrorScope('validation');
  let coop: Float32Array[];
  try {
    coop = await products(ctx, cfg);
  } catch (err) {
    await ctx.device.popErrorScope();
    return (err as Error).message;
  }
  const error = await ctx.device.popErrorScope();
  if (error) return error.message.split('\n')[0];
  // Inner products of 96 terms in [−1, 1]: float32 sums differ by ~1e-6 of √96; f16 inputs round each term by 2⁻¹¹.
  const tol = (cfg.component === 'f16' ? 2 ** -11 * 6 : 2 ** -24 * 60) * 96;
  for (let i = 0; i < plain.length; i++) {
    for (let j = 0; j < plain[i].length; j++) {
      const diff = Math.abs(coop[i][j] - plain[i][j]);
      if (!(diff <= tol)) return `result ${i} element ${j}: ${coop[i][j]} vs ${plain[i][j]} (tolerance ${tol.toExponential(1)})`;
    }
  }
  return null;
}

const verified = new WeakSet<GpuContext>();

/** Checks the optional kernels this device could use and turns on the ones that pass (once per device). */
export async function verifyOptionalKernels(ctx: GpuContext, log?: (line: string) => void): Promise<void> {
  if (verified.has(ctx)) return;
  verified.add(ctx);
  const cfg = chooseCoopConfig(ctx.device, ctx.adapterInfo, coopPolicy());
  if (!cfg) return;
  const why = await checkCoop(ctx, cfg);
  const name = `cooperative-matrix matmul (${cfg.component} ${cfg.M}x${cfg.N}x${cfg.K}, subgroups of ${cfg.subgroupSize})`;
  if (why) {
    log?.(`clawloop: webgpu: ${name} is off: it failed its start-up check: ${why}`);
    return;
  }
  ctx.coop = cfg;
  log?.(`clawloop: webgpu: ${name} on`);
}
