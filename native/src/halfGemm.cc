#include "halfGemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define CLAWLOOP_AVX2 1
#endif

#include "blas.h"
#include "threadPool.h"

#if !defined(_WIN32)
#include <dlfcn.h>
#else
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

namespace clawloop {
namespace {

HalfGemmMode mode = HalfGemmMode::Widen;

#if defined(CLAWLOOP_AVX2)
// 8 values of B widened to float32 lanes.
inline __m256 load8(const uint16_t* p, Kind kind) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
#if defined(__F16C__)
  if (kind == Kind::F16) return _mm256_cvtph_ps(h);
#endif
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
#endif

inline float widen1(uint16_t h, Kind kind) { return kind == Kind::BF16 ? bf16ToF32(h) : f16ToF32(h); }

// R rows of A (R = 1..4, a compile-time count so every accumulator stays in a register) against
// one row of B stored [n, k]: R dot products of length k. Two accumulators per row (four for a
// single row) hide the FMA latency.
template <int R>
void dotRows(const float* a, size_t lda, const uint16_t* brow, Kind kind, int k, float* out) {
  int j = 0;
  float acc[R];
  for (int r = 0; r < R; r++) acc[r] = 0;
#if defined(CLAWLOOP_AVX2)
  constexpr int U = R == 1 ? 4 : 2;  // accumulators per row
  __m256 v[R][U];
  for (int r = 0; r < R; r++)
    for (int u = 0; u < U; u++) v[r][u] = _mm256_setzero_ps();
  for (; j + 8 * U <= k; j += 8 * U) {
    for (int u = 0; u < U; u++) {
      const __m256 bv = load8(brow + j + 8 * u, kind);
      for (int r = 0; r < R; r++) v[r][u] = _mm256_fmadd_ps(_mm256_loadu_ps(a + r * lda + j + 8 * u), bv, v[r][u]);
    }
  }
  for (; j + 8 <= k; j += 8) {
    const __m256 bv = load8(brow + j, kind);
    for (int r = 0; r < R; r++) v[r][0] = _mm256_fmadd_ps(_mm256_loadu_ps(a + r * lda + j), bv, v[r][0]);
  }
  for (int r = 0; r < R; r++) {
    __m256 t = v[r][0];
    for (int u = 1; u < U; u++) t = _mm256_add_ps(t, v[r][u]);
    acc[r] = hsum(t);
  }
#endif
  for (; j < k; j++) {
    const float bv = widen1(brow[j], kind);
    for (int r = 0; r < R; r++) acc[r] += a[r * lda + j] * bv;
  }
  for (int r = 0; r < R; r++) out[r] = acc[r];
}

void dotRowsN(const float* a, size_t lda, int rows, const uint16_t* brow, Kind kind, int k, float* out) {
  switch (rows) {
    case 1: return dotRows<1>(a, lda, brow, kind, k, out);
    case 2: return dotRows<2>(a, lda, brow, kind, k, out);
    case 3: return dotRows<3>(a, lda, brow, kind, k, out);
    default: return dotRows<4>(a, lda, brow, kind, k, out);
  }
}

// C [m, n] = A [m, k] · Bᵀ with B stored [n, k], for small m: B is read once, spread over threads by rows.
void smallMTransB(const float* a, const uint16_t* b, Kind kind, float* c, int m, int n, int k) {
  parallelFor(n, 16, [&](size_t s, size_t e) {
    float tmp[4];
    for (size_t j = s; j < e; j++) {
      for (int r0 = 0; r0 < m; r0 += 4) {
        const int rows = std::min(4, m - r0);
        dotRowsN(a + static_cast<size_t>(r0) * k, k, rows, b + j * k, kind, k, tmp);
        for (int r = 0; r < rows; r++) c[static_cast<size_t>(r0 + r) * n + j] = tmp[r];
      }
    }
  });
}

// C [m, n] = A [m, k] · B with B stored [k, n], for small m: threads split the columns.
void smallMPlainB(const float* a, const uint16_t* b, Kind kind, float* c, int m, int n, int k) {
  parallelFor(n, 256, [&](size_t s, size_t e) {
    std::vector<float> row(e - s);
    for (int r = 0; r < m; r++) {
      float* out = c + static_cast<size_t>(r) * n + s;
      std::fill(out, out + (e - s), 0.0f);
      for (int kk = 0; kk < k; kk++) {
        widen(b + static_cast<size_t>(kk) * n + s, kind, row.data(), e - s);
        const float av = a[static_cast<size_t>(r) * k + kk];
        for (size_t j = 0; j < e - s; j++) out[j] += av * row[j];
      }
    }
  });
}

// Widens rows [r0, r1) × cols [c0, c1) of a row-major 16-bit matrix with `ld` columns into dst.
void widenBlock(const uint16_t* src, Kind kind, size_t ld, size_t r0, size_t r1, size_t c0, size_t c1, float* dst) {
  const size_t w = c1 - c0;
  parallelFor(r1 - r0, std::max<size_t>(1, 8192 / std::max<size_t>(w, 1)), [&](size_t s, size_t e) {
    for (size_t r = s; r < e; r++) widen(src + (r0 + r) * ld + c0, kind, dst + r * w, w);
  });
}

// One product through float32 panels of B of about 4 MB (cache-sized), each multiplied by sgemm.
void panelGemm(const float* a, const uint16_t* b, Kind kind, float* c, int m, int n, int k, bool ta, bool tb, std::vector<float>& scratch) {
  int nb = std::max(16, static_cast<int>((size_t(1) << 20) / std::max(k, 1)));
  nb = std::min(n, (nb + 15) / 16 * 16);
  scratch.resize(static_cast<size_t>(nb) * k);
  const int lda = ta ? m : k;
  for (int n0 = 0; n0 < n; n0 += nb) {
    const int w = std::min(nb, n - n0);
    if (tb) {  // B [n, k]: rows n0..n0+w are one contiguous block
      widenBlock(b, kind, k, n0, n0 + w, 0, k, scratch.data());
      cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, CblasTrans, m, w, k, 1.0f, a, lda, scratch.data(), k, 0.0f, c + n0, n);
    } else {  // B [k, n]: columns n0..n0+w of every row
      widenBlock(b, kind, n, 0, k, n0, n0 + w, scratch.data());
      cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, CblasNoTrans, m, w, k, 1.0f, a, lda, scratch.data(), w, 0.0f, c + n0, n);
    }
  }
}

// OpenBLAS's BF16 GEMM, looked up at run time: only builds with BUILD_BFLOAT16 have it (Debian's
// 0.3.21 does not; conda's and most recent distributions' do).
using SbGemmFn = void (*)(int order, int ta, int tb, int m, int n, int k, float alpha, const uint16_t* a, int lda, const uint16_t* b,
                          int ldb, float beta, float* c, int ldc);
SbGemmFn lookupSbGemm() {
#if defined(CLAWLOOP_ACCELERATE)
  return nullptr;
#elif defined(_WIN32)
  HMODULE blas = GetModuleHandleA("libopenblas.dll");
  return blas ? reinterpret_cast<SbGemmFn>(GetProcAddress(blas, "cblas_sbgemm")) : nullptr;
#else
  return reinterpret_cast<SbGemmFn>(dlsym(RTLD_DEFAULT, "cblas_sbgemm"));
#endif
}
const SbGemmFn sbgemmFn = lookupSbGemm();

// Round to nearest even, as PyTorch's float -> bfloat16 conversion.
inline uint16_t toBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((bits >> 16) | 0x40);  // NaN stays NaN
  return static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

// A rounded to bfloat16, then OpenBLAS's sbgemm (float32 accumulation).
void sbGemm(const float* a, const uint16_t* b, float* c, int m, int n, int k, bool ta, bool tb, std::vector<uint16_t>& abf) {
  const size_t count = static_cast<size_t>(m) * k;
  abf.resize(count);
  parallelFor(count, 1 << 16, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; i++) abf[i] = toBf16(a[i]);
  });
  sbgemmFn(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, abf.data(), ta ? m : k, b, tb ? k : n,
           0.0f, c, n);
}

}  // namespace

bool sbgemmAvailable() { return sbgemmFn != nullptr; }
void setHalfGemmMode(HalfGemmMode m) { mode = m == HalfGemmMode::SbGemm && !sbgemmFn ? HalfGemmMode::Widen : m; }
HalfGemmMode halfGemmMode() { return mode; }

void gemmHalfB(const float* a, const uint16_t* b, Kind kind, float* c, size_t batch, int m, int n, int k, bool transA, bool transB,
               size_t strideA, size_t strideB, size_t strideC) {
  std::vector<float> scratch;
  std::vector<uint16_t> abf;
  std::vector<float> aPlain;
  for (size_t i = 0; i < batch; i++) {
    const float* ai = a + i * strideA;
    const uint16_t* bi = b + i * strideB;
    float* ci = c + i * strideC;
    if (m <= 8) {
      if (transA) {  // the few rows of Aᵀ, gathered into a plain [m, k] block
        aPlain.resize(static_cast<size_t>(m) * k);
        for (int r = 0; r < m; r++)
          for (int kk = 0; kk < k; kk++) aPlain[static_cast<size_t>(r) * k + kk] = ai[static_cast<size_t>(kk) * m + r];
        ai = aPlain.data();
      }
      if (transB) smallMTransB(ai, bi, kind, ci, m, n, k);
      else smallMPlainB(ai, bi, kind, ci, m, n, k);
      continue;
    }
    if (mode == HalfGemmMode::SbGemm && kind == Kind::BF16) {
      sbGemm(ai, bi, ci, m, n, k, transA, transB, abf);
      continue;
    }
    panelGemm(ai, bi, kind, ci, m, n, k, transA, transB, scratch);
  }
}

}  // namespace clawloop
