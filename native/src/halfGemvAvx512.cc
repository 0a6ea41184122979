// halfGemv's AVX-512 kernels: AVX-512F (weights widened 16 at a time, FMA) and AVX-512 BF16
// (vdpbf16ps: 32 bfloat16 products a step, float32 sums). Compiled for those instruction sets
// whatever -march the addon is built with, and run only where cpuid reports them (halfGemv.cc).
#include "halfGemvKernels.h"

#if defined(CLAWLOOP_X86_KERNELS)
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics (vcvtph2ps, the reduction's extracts) start from a deliberately
// undefined register (`__Y = __Y`), which -Wuninitialized reports wherever they are inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define CLAWLOOP_AVX512_TARGET __attribute__((target("avx512f")))
#define CLAWLOOP_AVX512BF16_TARGET __attribute__((target("avx512f,avx512bf16")))

namespace clawloop {
namespace {

// 16 weights widened to float32.
template <bool F16>
CLAWLOOP_AVX512_TARGET inline __m512 load16(const uint16_t* p) {
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  if (F16) return _mm512_cvtph_ps(h);
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

// M rows of x against R consecutive rows of W, one accumulator per pair (as the AVX2 kernel).
template <bool F16, int M, int R>
CLAWLOOP_AVX512_TARGET void tile(const float* x, int k, const uint16_t* w, float* y, size_t n) {
  __m512 acc[M][R];
  for (int i = 0; i < M; i++)
    for (int r = 0; r < R; r++) acc[i][r] = _mm512_setzero_ps();
  int j = 0;
  for (; j + 16 <= k; j += 16) {
    if ((j & 31) == 0) prefetchNextTile(w, static_cast<size_t>(R) * k, static_cast<size_t>(j) * 2 * R, R);
    __m512 xv[M];
    for (int i = 0; i < M; i++) xv[i] = _mm512_loadu_ps(x + static_cast<size_t>(i) * k + j);
    for (int r = 0; r < R; r++) {
      const __m512 wv = load16<F16>(w + static_cast<size_t>(r) * k + j);
      for (int i = 0; i < M; i++) acc[i][r] = _mm512_fmadd_ps(xv[i], wv, acc[i][r]);
    }
  }
  for (int i = 0; i < M; i++) {
    for (int r = 0; r < R; r++) {
      float s = _mm512_reduce_add_ps(acc[i][r]);
      for (int t = j; t < k; t++) {
        const uint16_t h = w[static_cast<size_t>(r) * k + t];
        s += x[static_cast<size_t>(i) * k + t] * (F16 ? f16ToF32(h) : bf16ToF32(h));
      }
      y[static_cast<size_t>(i) * n + r] = s;
    }
  }
}

template <bool F16, int M, int R>
CLAWLOOP_AVX512_TARGET void block(const GemvJob& g, int i0, size_t j0, size_t j1) {
  const float* x = g.x + static_cast<size_t>(i0) * g.k;
  float* y = g.y + static_cast<size_t>(i0) * g.n;
  size_t j = j0;
  for (; j + R <= j1; j += R) tile<F16, M, R>(x, g.k, g.w + j * g.k, y + j, g.n);
  for (; j < j1; j++) tile<F16, M, 1>(x, g.k, g.w + j * g.k, y + j, g.n);
}

// One row of x: W's rows one after another, one linear stream (see rowsBf16M1), four sums a row.
template <bool F16>
CLAWLOOP_AVX512_TARGET void rowsM1(const GemvJob& g, size_t j0, size_t j1) {
  const int k = g.k;
  for (size_t r = j0; r < j1; r++) {
    const uint16_t* w = g.w + r * k;
    __m512 a[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    int j = 0;
    for (; j + 64 <= k; j += 64)
      for (int u = 0; u < 4; u++) a[u] = _mm512_fmadd_ps(_mm512_loadu_ps(g.x + j + 16 * u), load16<F16>(w + j + 16 * u), a[u]);
    for (; j + 16 <= k; j += 16) a[0] = _mm512_fmadd_ps(_mm512_loadu_ps(g.x + j), load16<F16>(w + j), a[0]);
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a[0], a[1]), _mm512_add_ps(a[2], a[3])));
    for (; j < k; j++) s += g.x[j] * (F16 ? f16ToF32(w[j]) : bf16ToF32(w[j]));
    g.y[r] = s;
  }
}

template <bool F16>
CLAWLOOP_AVX512_TARGET void rows(const GemvJob& g, size_t j0, size_t j1) {
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

void gemvRowsAvx512(const GemvJob& g, size_t j0, size_t j1) {
  if (g.kind == Kind::F16) rows<true>(g, j0, j1);
  else rows<false>(g, j0, j1);
}

}  // namespace clawloop

#if defined(CLAWLOOP_AVX512BF16_KERNEL)
namespace clawloop {
namespace {

// M rows of bfloat16 x against R rows of BF16 W: vdpbf16ps multiplies 32 pairs and adds them to
// 16 float32 lanes, two products a lane, in one instruction.
template <int M, int R>
CLAWLOOP_AVX512BF16_TARGET void tileBf16(const uint16_t* x, int k, const uint16_t* w, float* y, size_t n) {
  __m512 acc[M][R];
  for (int i = 0; i < M; i++)
    for (int r = 0; r < R; r++) acc[i][r] = _mm512_setzero_ps();
  int j = 0;
  for (; j + 32 <= k; j += 32) {
    prefetchNextTile(w, static_cast<size_t>(R) * k, static_cast<size_t>(j) * 2 * R, R);
    __m512i xv[M];
    for (int i = 0; i < M; i++) xv[i] = _mm512_loadu_si512(x + static_cast<size_t>(i) * k + j);
    for (int r = 0; r < R; r++) {
      const __m512i wv = _mm512_loadu_si512(w + static_cast<size_t>(r) * k + j);
      for (int i = 0; i < M; i++) acc[i][r] = _mm512_dpbf16_ps(acc[i][r], (__m512bh)xv[i], (__m512bh)wv);
    }
  }
  for (int i = 0; i < M; i++) {
    for (int r = 0; r < R; r++) {
      float s = _mm512_reduce_add_ps(acc[i][r]);
      for (int t = j; t < k; t++) s += bf16ToF32(x[static_cast<size_t>(i) * k + t]) * bf16ToF32(w[static_cast<size_t>(r) * k + t]);
      y[static_cast<size_t>(i) * n + r] = s;
    }
  }
}

template <int M, int R>
CLAWLOOP_AVX512BF16_TARGET void blockBf16(const GemvJob& g, int i0, size_t j0, size_t j1) {
  const uint16_t* x = g.xbf + static_cast<size_t>(i0) * g.k;
  float* y = g.y + static_cast<size_t>(i0) * g.n;
  size_t j = j0;
  for (; j + R <= j1; j += R) tileBf16<M, R>(x, g.k, g.w + j * g.k, y + j, g.n);
  for (; j < j1; j++) tileBf16<M, 1>(x, g.k, g.w + j * g.k, y + j, g.n);
}

}  // namespace

// One row of x (decoding): W's rows one after another, so the weights stream through memory in
// one linear pass (the hardware prefetchers follow one stream far better than the 8 of a tile:
// 1.3-1.5x the GB/s on the 1.7B shapes, AMD EPYC Zen 4), four independent sums a row.
CLAWLOOP_AVX512BF16_TARGET void rowsBf16M1(const GemvJob& g, size_t j0, size_t j1) {
  const int k = g.k;
  const uint16_t* x = g.xbf;
  for (size_t r = j0; r < j1; r++) {
    const uint16_t* w = g.w + r * k;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
    int j = 0;
    for (; j + 128 <= k; j += 128) {
      a0 = _mm512_dpbf16_ps(a0, (__m512bh)_mm512_loadu_si512(x + j), (__m512bh)_mm512_loadu_si512(w + j));
      a1 = _mm512_dpbf16_ps(a1, (__m512bh)_mm512_loadu_si512(x + j + 32), (__m512bh)_mm512_loadu_si512(w + j + 32));
      a2 = _mm512_dpbf16_ps(a2, (__m512bh)_mm512_loadu_si512(x + j + 64), (__m512bh)_mm512_loadu_si512(w + j + 64));
      a3 = _mm512_dpbf16_ps(a3, (__m512bh)_mm512_loadu_si512(x + j + 96), (__m512bh)_mm512_loadu_si512(w + j + 96));
    }
    for (; j + 32 <= k; j += 32) a0 = _mm512_dpbf16_ps(a0, (__m512bh)_mm512_loadu_si512(x + j), (__m512bh)_mm512_loadu_si512(w + j));
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
    for (; j < k; j++) s += bf16ToF32(x[j]) * bf16ToF32(w[j]);
    g.y[r] = s;
  }
}

void gemvRowsAvx512Bf16(const GemvJob& g, size_t j0, size_t j1) {
  if (g.m == 1) return rowsBf16M1(g, j0, j1);
  for (size_t b = j0; b < j1; b += 8) {
    const size_t e = b + 8 < j1 ? b + 8 : j1;
    int i = 0;
    for (; i + 4 <= g.m; i += 4) blockBf16<4, 2>(g, i, b, e);
    if (g.m - i == 3) blockBf16<3, 2>(g, i, b, e);
    if (g.m - i == 2) blockBf16<2, 4>(g, i, b, e);
    if (g.m - i == 1) blockBf16<1, 8>(g, i, b, e);
  }
}

}  // namespace clawloop
#endif
#endif
