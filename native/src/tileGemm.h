// Small dense products on tiles that live in cache (the flash attention's score and value tiles).
#pragma once
#include <cstddef>

namespace clawloop {

// C[M, N] += A[M, K] · B[K, N], all row-major with leading dimensions lda, ldb, ldc (in floats).
// M must be a multiple of 4 and N of 16 (callers pad their tiles with zeros). Single-threaded:
// the callers parallelise over tiles. AVX2+FMA register blocks of 4×16 where the build has them.
void tileGemm(size_t M, size_t N, size_t K, const float* A, size_t lda, const float* B, size_t ldb, float* C, size_t ldc);

// dst[c, r] = src[r, c] for a rows × cols block (leading dimensions lds, ldd).
void tileTranspose(size_t rows, size_t cols, const float* src, size_t lds, float* dst, size_t ldd);

}  // namespace clawloop
