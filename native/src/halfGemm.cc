#include "halfGemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "blas.h"
#include "halfGemmPacked.h"
#include "halfGemv.h"
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

// Whether the packed kernel runs here for B of `kind` (asked once a process).
bool packedRuns(Kind kind) {
  static const bool runs[2] = {packedGemmUnavailable(Kind::BF16).empty(), packedGemmUnavailable(Kind::F16).empty()};
  return runs[kind == Kind::F16 ? 1 : 0];
}

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
const char* halfGemmModeName(HalfGemmMode m) {
  switch (m) {
    case HalfGemmMode::SbGemm: return "sbgemm";
    case HalfGemmMode::Packed: return "packed";
    default: return "widen";
  }
}

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
      if (transB) halfGemv(gemvPath(kind), ai, bi, kind, ci, m, n, k);
      else smallMPlainB(ai, bi, kind, ci, m, n, k);
      continue;
    }
    if (mode == HalfGemmMode::SbGemm && kind == Kind::BF16) {
      sbGemm(ai, bi, ci, m, n, k, transA, transB, abf);
      continue;
    }
    if (mode == HalfGemmMode::Packed && packedRuns(kind)) {
      gemmHalfPacked(ai, bi, kind, ci, m, n, k, transA, transB);
      continue;
    }
    panelGemm(ai, bi, kind, ci, m, n, k, transA, transB, scratch);
  }
}

}  // namespace clawloop
