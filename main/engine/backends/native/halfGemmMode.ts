import type { HalfGemm, NdAddon } from './ndAddon.js';

/**
 * How products with 16-bit weights and many rows of activations (prefill, training) run on the
 * native backend, from `CLAWLOOP_BF16_GEMM` (it covers F16 weights too):
 * - `packed`: the addon's own GEMM (native/src/halfGemmPacked.h), which widens the weights inside
 *   its packing, AVX2 + FMA, so no float32 copy of a weight exists; float32 activations;
 * - `widen`: the weights widened to float32 a cache-sized panel at a time for OpenBLAS's sgemm;
 * - `sbgemm`: OpenBLAS's BF16 GEMM, activations rounded to bfloat16 (as PyTorch's BF16 matmul);
 *   BF16 weights only (F16 ones are widened).
 *
 * Default: sbgemm where the CPU has AVX512-BF16 or AMX and the OpenBLAS build has cblas_sbgemm
 * (built with BUILD_BFLOAT16; Debian 12's is not); else packed on AVX2 CPUs without AVX-512
 * (where it is faster than widening, docs/cpu.md); else widen (OpenBLAS's AVX-512 sgemm does
 * twice the AVX2 kernel's work a cycle). Throws on an unknown value, or one this CPU or BLAS
 * cannot run, saying why.
 */
export function halfGemmMode(nd: NdAddon, env: NodeJS.ProcessEnv = process.env): HalfGemm {
  const f = nd.cpu().features;
  const raw = env.CLAWLOOP_BF16_GEMM?.trim().toLowerCase();
  if (raw === 'sbgemm' && !f.blasSbgemm) {
    throw new Error(
      'CLAWLOOP_BF16_GEMM=sbgemm, but this OpenBLAS has no cblas_sbgemm: install one built with BUILD_BFLOAT16=1, or use packed or widen',
    );
  }
  if (raw === 'packed' && !f.packedGemm) {
    throw new Error('CLAWLOOP_BF16_GEMM=packed, but the packed kernel needs an x86-64 CPU with AVX2 and FMA: use widen');
  }
  if (raw === 'sbgemm' || raw === 'widen' || raw === 'packed') return raw;
  if (raw)
    throw new Error(`CLAWLOOP_BF16_GEMM is '${env.CLAWLOOP_BF16_GEMM}'; expected packed, widen or sbgemm, or unset for this CPU's default`);
  if (f.blasSbgemm && (f.avx512bf16 || f.amxBf16)) return 'sbgemm';
  return f.packedGemm && !f.avx512f ? 'packed' : 'widen';
}
