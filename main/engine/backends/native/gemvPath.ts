import { GEMV_PATHS, KIND, type GemvPath, type NdAddon } from './ndAddon.js';

/**
 * Applies `CLAWLOOP_GEMV`: the kernel decoding's 16-bit matrix-vector products use, one of
 * avx512bf16, avx512f, avx2 or scalar (native/src/halfGemv.h). Unset (the default), the addon picks
 * the fastest the CPU has among those that keep activations float32, so that decoding, prefill and
 * the trainer's scoring agree; avx512bf16 (activations rounded to bfloat16, faster where the CPU
 * has AVX512-BF16) is chosen only by name. Set, it is for comparing paths on one machine.
 * avx512bf16 multiplies BF16 weights only: F16 weights keep their default. Throws when the CPU
 * cannot run the path, saying which feature it lacks.
 * @returns the paths in effect
 */
export function applyGemvPath(nd: NdAddon, env: NodeJS.ProcessEnv = process.env): { bf16: GemvPath; f16: GemvPath } {
  const raw = env.CLAWLOOP_GEMV?.trim().toLowerCase();
  if (raw) {
    const path = GEMV_PATHS.find((p) => p === raw);
    if (!path)
      throw new Error(
        `CLAWLOOP_GEMV is '${env.CLAWLOOP_GEMV}'; expected one of ${GEMV_PATHS.join(', ')}, or unset for the fastest this CPU has`,
      );
    const kinds = path === 'avx512bf16' ? [KIND.bf16] : [KIND.bf16, KIND.f16];
    for (const kind of kinds) {
      const why = nd.gemvUnavailable(path, kind);
      if (why) throw new Error(`CLAWLOOP_GEMV=${path}: ${why}; unset it to use the fastest path this CPU has`);
      nd.setGemvPath(kind, path);
    }
  }
  return { bf16: nd.gemvPath(KIND.bf16), f16: nd.gemvPath(KIND.f16) };
}
