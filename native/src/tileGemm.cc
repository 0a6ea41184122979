#include "tileGemm.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace clawloop {

namespace {

#if defined(__AVX2__) && defined(__FMA__)
// C[4, 16] += A[4, K] · B[K, 16]: eight accumulators, two loads of B and four broadcasts per k.
inline void block4x16(size_t K, const float* A, size_t lda, const float* B, size_t ldb, float* C, size_t ldc) {
  __m256 c00 = _mm256_loadu_ps(C), c01 = _mm256_loadu_ps(C + 8);
  __m256 c10 = _mm256_loadu_ps(C + ldc), c11 = _mm256_loadu_ps(C + ldc + 8);
  __m256 c20 = _mm256_loadu_ps(C + 2 * ldc), c21 = _mm256_loadu_ps(C + 2 * ldc + 8);
  __m256 c30 = _mm256_loadu_ps(C + 3 * ldc), c31 = _mm256_loadu_ps(C + 3 * ldc + 8);
  for (size_t k = 0; k < K; k++) {
    const __m256 b0 = _mm256_loadu_ps(B + k * ldb), b1 = _mm256_loadu_ps(B + k * ldb + 8);
    __m256 a = _mm256_broadcast_ss(A + k);
    c00 = _mm256_fmadd_ps(a, b0, c00);
    c01 = _mm256_fmadd_ps(a, b1, c01);
    a = _mm256_broadcast_ss(A + lda + k);
    c10 = _mm256_fmadd_ps(a, b0, c10);
    c11 = _mm256_fmadd_ps(a, b1, c11);
    a = _mm256_broadcast_ss(A + 2 * lda + k);
    c20 = _mm256_fmadd_ps(a, b0, c20);
    c21 = _mm256_fmadd_ps(a, b1, c21);
    a = _mm256_broadcast_ss(A + 3 * lda + k);
    c30 = _mm256_fmadd_ps(a, b0, c30);
    c31 = _mm256_fmadd_ps(a, b1, c31);
  }
  _mm256_storeu_ps(C, c00);
  _mm256_storeu_ps(C + 8, c01);
  _mm256_storeu_ps(C + ldc, c10);
  _mm256_storeu_ps(C + ldc + 8, c11);
  _mm256_storeu_ps(C + 2 * ldc, c20);
  _mm256_storeu_ps(C + 2 * ldc + 8, c21);
  _mm256_storeu_ps(C + 3 * ldc, c30);
  _mm256_storeu_ps(C + 3 * ldc + 8, c31);
}
#else
// The same block in plain loops (compilers vectorise the inner one over the 16 columns).
inline void block4x16(size_t K, const float* A, size_t lda, const float* B, size_t ldb, float* C, size_t ldc) {
  for (size_t r = 0; r < 4; r++) {
    float acc[16];
    for (size_t j = 0; j < 16; j++) acc[j] = C[r * ldc + j];
    for (size_t k = 0; k < K; k++) {
      const float a = A[r * lda + k];
      for (size_t j = 0; j < 16; j++) acc[j] += a * B[k * ldb + j];
    }
    for (size_t j = 0; j < 16; j++) C[r * ldc + j] = acc[j];
  }
}
#endif

}  // namespace

void tileGemm(size_t M, size_t N, size_t K, const float* A, size_t lda, const float* B, size_t ldb, float* C, size_t ldc) {
  for (size_t i = 0; i < M; i += 4)
    for (size_t j = 0; j < N; j += 16) block4x16(K, A + i * lda, lda, B + j, ldb, C + i * ldc + j, ldc);
}

void tileTranspose(size_t rows, size_t cols, const float* src, size_t lds, float* dst, size_t ldd) {
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) dst[c * ldd + r] = src[r * lds + c];
}

}  // namespace clawloop
