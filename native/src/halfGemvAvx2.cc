// halfGemv's AVX2 kernel (AVX2 + FMA; F16C for half weights), compiled for that instruction set
// whatever -march the addon is built with, and run only where cpuid reports it (halfGemv.cc).
#include "halfGemvKernels.h"

#if defined(CLAWLOOP_X86_KERNELS)
#include <immintrin.h>

#define CLAWLOOP_AVX2_TARGET __attribute__((target("avx2,fma,f16c")))

namespace clawloop {
namespace {

// 8 weights widened to float32: BF16 is the top half of a float32, F16 converts with F16C.
template <bool F16>
CLAWLOOP_AVX2_TARGET inline __m256 load8(const uint16_t* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if (F16) return _mm256_cvtph_ps(h);
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

CLAWLOOP_AVX2_TARGET inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// M rows of x against R consecutive rows of W: y[i·n + r] for i < M, r < R. Every (i, r) pair has
// its own accumulator (M·R ≤ 8 of the 16 registers), so R rows of W stream in together and each
// weight vector, widened once, serves all M rows of x.
template <bool F16, int M, int R>
CLAWLOOP_AVX2_TARGET void tile(const float* x, int k, const uint16_t* w, float* y, size_t n) {
  __m256 acc[M][R];
  for (int i = 0; i < M; i++)
    for (int r = 0; r < R; r++) acc[i][r] = _mm256_setzero_ps();
  int j = 0;
  for (; j + 8 <= k; j += 8) {
    if ((j & 31) == 0) prefetchNextTile(w, static_cast<size_t>(R) * k, static_cast<size_t>(j) * 2 * R, R);
    __m256 xv[M];
    for (int i = 0; i < M; i++) xv[i] = _mm256_loadu_ps(x + static_cast<size_t>(i) * k + j);
    for (int r = 0; r < R; r++) {
      const __m256 wv = load8<F16>(w + static_cast<size_t>(r) * k + j);
      for (int i = 0; i < M; i++) acc[i][r] = _mm256_fmadd_ps(xv[i], wv, acc[i][r]);
    }
  }
  for (int i = 0; i < M; i++) {
    for (int r = 0; r < R; r++) {
      float s = hsum(acc[i][r]);
      for (int t = j; t < k; t++) {
        const uint16_t h = w[static_cast<size_t>(r) * k + t];
        s += x[static_cast<size_t>(i) * k + t] * (F16 ? f16ToF32(h) : bf16ToF32(h));
      }
      y[static_cast<size_t>(i) * n + r] = s;
    }
  }
}

// Rows [j0, j1) of W (at most 8) against M rows of x from row i0.
template <bool F16, int M, int R>
CLAWLOOP_AVX2_TARGET void block(const GemvJob& g, int i0, size_t j0, size_t j1) {
  const float* x = g.x + static_cast<size_t>(i0) * g.k;
  float* y = g.y + static_cast<size_t>(i0) * g.n;
  size_t j = j0;
  for (; j + R <= j1; j += R) tile<F16, M, R>(x, g.k, g.w + j * g.k, y + j, g.n);
  for (; j < j1; j++) tile<F16, M, 1>(x, g.k, g.w + j * g.k, y + j, g.n);
}

// One row of x (decoding): W's rows one after another, so the weights stream through memory in
// one linear pass (the hardware prefetchers follow one stream far better than the 8 of a tile),
// four independent sums a row.
template <bool F16>
CLAWLOOP_AVX2_TARGET void rowsM1(const GemvJob& g, size_t j0, size_t j1) {
  const int k = g.k;
  for (size_t r = j0; r < j1; r++) {
    const uint16_t* w = g.w + r * k;
    __m256 a[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    int j = 0;
    for (; j + 32 <= k; j += 32)
      for (int u = 0; u < 4; u++) a[u] = _mm256_fmadd_ps(_mm256_loadu_ps(g.x + j + 8 * u), load8<F16>(w + j + 8 * u), a[u]);
    for (; j + 8 <= k; j += 8) a[0] = _mm256_fmadd_ps(_mm256_loadu_ps(g.x + j), load8<F16>(w + j), a[0]);
    float s = hsum(_mm256_add_ps(_mm256_add_ps(a[0], a[1]), _mm256_add_ps(a[2], a[3])));
    for (; j < k; j++) s += g.x[j] * (F16 ? f16ToF32(w[j]) : bf16ToF32(w[j]));
    g.y[r] = s;
  }
}

// Blocks of 8 rows of W, each multiplied by every row of x while it is still in cache.
template <bool F16>
CLAWLOOP_AVX2_TARGET void rows(const GemvJob& g, size_t j0, size_t j1) {
  if (g.m == 1) return rowsM1<F16>(g, j0, j1);
  for (size_t b = j0; b < j1; b += 8) {
    const size_t e = b + 8 < j1 ? b + 8 : j1;
    int i = 0;
    for (; i + 4 <= g.m; i += 4) block<F16, 4, 2>(g, i, b, e);
    if (g.m - i == 3) block<F16, 3, 2>(g, i, b, e);
    if (g.m - i == 2) block<F16, 2, 4>(g, i, b, e);
    if (g.m - i == 1) block<F16, 1, 8>(g, i, b, e);
  }
}

}  // namespace

void gemvRowsAvx2(const GemvJob& g, size_t j0, size_t j1) {
  if (g.kind == Kind::F16) rows<true>(g, j0, j1);
  else rows<false>(g, j0, j1);
}

}  // namespace clawloop
#endif
