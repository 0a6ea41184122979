// Matrix products with a 16-bit B (frozen BF16 or F16 weights) and float32 A, C and accumulation,
// in one kernel that widens B inside its packing: no float32 copy of B exists, not even a panel
// handed to BLAS. The layout is BLIS's: B is packed a [KC, NR] micro-panel at a time, widened to
// float32 as it is packed (shift for BF16, vcvtph2ps for F16; a register transpose when B is
// stored [n, k]); A is packed [MR, KC] and a 6 × 16 register-blocked micro-kernel (AVX2 + FMA)
// multiplies them. So each weight is read once a product, as 16 bits, where widening first
// (halfGemm.h's panel path) reads it, writes it as float32, and BLAS reads and packs that again.
//
// Compiled for AVX2 + FMA + F16C with function-level target attributes whatever -march the addon
// is built with, and run only where cpuid reports those features (the GEMV's avx2 path's needs,
// halfGemv.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "tensorBuf.h"

namespace clawloop {

// Why the packed kernel cannot multiply B of `kind` in this process (the CPU lacks AVX2 or FMA, or
// F16C for F16; or the addon was built without x86 kernels), or "" when it can.
std::string packedGemmUnavailable(Kind kind);

// C [m, n] = op(A) · op(B), row-major, with A [m, k] (transA: [k, m]) float32 and B [k, n]
// (transB: [n, k]) of `kind`, BF16 or F16. Threads split C's columns. Call only when
// packedGemmUnavailable(kind) is "".
void gemmHalfPacked(const float* a, const uint16_t* b, Kind kind, float* c, int m, int n, int k, bool transA, bool transB);

}  // namespace clawloop
