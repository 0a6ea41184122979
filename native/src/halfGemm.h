// Matrix products whose B operand is stored in 16 bits (bfloat16 or IEEE half: frozen weights),
// with float32 A, C and accumulation. B is never widened as a whole:
// - few rows of A (decoding): halfGemv (halfGemv.h), which streams B once straight from its 16-bit
//   storage with the CPU family's kernel (reading half the bytes a float32 B would);
// - many rows: B is widened one panel of columns at a time into a small float32 buffer that
//   stays in cache, and BLAS's sgemm multiplies it, so only that panel is ever float32;
// - or, when `halfGemmMode` says Packed (the default on AVX2 CPUs without AVX-512), ClawLoop's own
//   GEMM (halfGemmPacked.h), which widens B inside its packing, so no float32 copy of B exists;
// - or, when it says SbGemm (the default on CPUs with AVX512-BF16 or AMX), OpenBLAS's sbgemm with
//   A rounded to bfloat16 (FP32 accumulation, as PyTorch's BF16 matmul), where the OpenBLAS build
//   has it.
#pragma once
#include <cstddef>

#include "tensorBuf.h"

namespace clawloop {

enum class HalfGemmMode : int { Widen = 0, SbGemm = 1, Packed = 2 };
// Whether the BLAS library has cblas_sbgemm (OpenBLAS built with BUILD_BFLOAT16).
bool sbgemmAvailable();
// Sets the mode; SbGemm without sbgemmAvailable() stays Widen. Packed multiplies B of a kind the
// packed kernel cannot run here (packedGemmUnavailable) by widening panels instead.
void setHalfGemmMode(HalfGemmMode mode);
HalfGemmMode halfGemmMode();
// "widen", "sbgemm" or "packed".
const char* halfGemmModeName(HalfGemmMode mode);

// C[i] = op(A[i]) · op(B[i]) for i < batch, row-major, as gemmBatched, with B of `kind` BF16 or F16.
void gemmHalfB(const float* a, const uint16_t* b, Kind kind, float* c, size_t batch, int m, int n, int k, bool transA, bool transB,
               size_t strideA, size_t strideB, size_t strideC);

}  // namespace clawloop
