#include "halfGemmPacked.h"

#include <algorithm>
#include <vector>

#include "halfGemv.h"
#include "halfGemvKernels.h"
#include "threadPool.h"

#if defined(CLAWLOOP_X86_KERNELS)
#include <immintrin.h>

#define CLAWLOOP_PACKED_TARGET __attribute__((target("avx2,fma,f16c")))

namespace clawloop {
namespace {

// The micro-kernel's register block: 6 rows of A × 16 columns of B, 12 accumulators of the 16
// ymm registers, 2 for B's row and 1 for A's broadcast.
constexpr int MR = 6, NR = 16;
// k per packed slice: a B micro-panel [KC, NR] (16 KB) stays in L1 while every A micro-panel of
// a block meets it.
constexpr int KC = 256;
// Rows of A per block: [MC, KC] (96 KB) stays in L2 while the task's B micro-panels pass.
constexpr int MC = 96;
// Most columns of C one thread task owns; its packed B slice [KC, NT] is 256 KB.
constexpr int NT = 256;

template <bool F16>
CLAWLOOP_PACKED_TARGET inline __m256 load8(const uint16_t* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if (F16) return _mm256_cvtph_ps(h);
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

template <bool F16>
inline float widen1(uint16_t h) {
  return F16 ? f16ToF32(h) : bf16ToF32(h);
}

// r[q][c] becomes r[c][q]: an 8 × 8 float transpose in registers.
CLAWLOOP_PACKED_TARGET inline void transpose8(__m256 r[8]) {
  __m256 t[8], s[8];
  for (int q = 0; q < 8; q += 2) {
    t[q] = _mm256_unpacklo_ps(r[q], r[q + 1]);
    t[q + 1] = _mm256_unpackhi_ps(r[q], r[q + 1]);
  }
  for (int q = 0; q < 8; q += 4) {
    s[q] = _mm256_shuffle_ps(t[q], t[q + 2], 0x44);
    s[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], 0xEE);
    s[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0x44);
    s[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0xEE);
  }
  for (int q = 0; q < 4; q++) {
    r[q] = _mm256_permute2f128_ps(s[q], s[q + 4], 0x20);
    r[q + 4] = _mm256_permute2f128_ps(s[q], s[q + 4], 0x31);
  }
}

// A's rows (zero past m) × k [p0, p0 + kc), as MR-row panels: dst[panel][p][r].
void packA(const float* a, int m, int k, bool ta, int p0, int kc, float* dst) {
  for (int i0 = 0; i0 < m; i0 += MR) {
    float* d = dst + static_cast<size_t>(i0) * kc;
    const int rows = std::min(MR, m - i0);
    if (ta) {  // A stored [k, m]: a panel's row of MR values is contiguous
      for (int p = 0; p < kc; p++) {
        const float* src = a + static_cast<size_t>(p0 + p) * m + i0;
        for (int r = 0; r < MR; r++) d[p * MR + r] = r < rows ? src[r] : 0.0f;
      }
      continue;
    }
    for (int r = 0; r < MR; r++) {
      const float* src = a + static_cast<size_t>(i0 + r) * k + p0;
      for (int p = 0; p < kc; p++) d[p * MR + r] = r < rows ? src[p] : 0.0f;
    }
  }
}

// B stored [k, n]: columns [j0, j0 + w) (w <= NR, zero past it) × k [p0, p0 + kc), widened,
// as dst[p][c].
template <bool F16>
CLAWLOOP_PACKED_TARGET void packBPlain(const uint16_t* b, int n, int p0, int kc, int j0, int w, float* d) {
  for (int p = 0; p < kc; p++) {
    const uint16_t* src = b + static_cast<size_t>(p0 + p) * n + j0;
    float* row = d + static_cast<size_t>(p) * NR;
    if (w == NR) {
      _mm256_storeu_ps(row, load8<F16>(src));
      _mm256_storeu_ps(row + 8, load8<F16>(src + 8));
      continue;
    }
    for (int c = 0; c < NR; c++) row[c] = c < w ? widen1<F16>(src[c]) : 0.0f;
  }
}

// B stored [n, k] (a weight held [out, in]): the same panel, read along B's rows and transposed
// 8 × 8 in registers.
template <bool F16>
CLAWLOOP_PACKED_TARGET void packBTrans(const uint16_t* b, int k, int p0, int kc, int j0, int w, float* d) {
  int p = 0;
  if (w == NR) {
    for (; p + 8 <= kc; p += 8) {
      for (int h = 0; h < NR; h += 8) {
        __m256 r[8];
        for (int q = 0; q < 8; q++) r[q] = load8<F16>(b + static_cast<size_t>(j0 + h + q) * k + p0 + p);
        transpose8(r);
        for (int q = 0; q < 8; q++) _mm256_storeu_ps(d + static_cast<size_t>(p + q) * NR + h, r[q]);
      }
    }
  }
  for (; p < kc; p++)
    for (int c = 0; c < NR; c++) d[static_cast<size_t>(p) * NR + c] = c < w ? widen1<F16>(b[static_cast<size_t>(j0 + c) * k + p0 + p]) : 0.0f;
}

// C [rows, cols] (+)= an A micro-panel [kc, MR] · a B micro-panel [kc, NR]; `accumulate` adds to
// C (every k slice after the first), else overwrites it. The 12 accumulators are named variables,
// not an array: GCC spills an array of them to the stack on every k step.
CLAWLOOP_PACKED_TARGET void micro(int kc, const float* a, const float* b, float* c, size_t ldc, int rows, int cols, bool accumulate) {
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  for (int p = 0; p < kc; p++, a += MR, b += NR) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    __m256 av = _mm256_broadcast_ss(a);
    c00 = _mm256_fmadd_ps(av, b0, c00);
    c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_broadcast_ss(a + 1);
    c10 = _mm256_fmadd_ps(av, b0, c10);
    c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_broadcast_ss(a + 2);
    c20 = _mm256_fmadd_ps(av, b0, c20);
    c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_broadcast_ss(a + 3);
    c30 = _mm256_fmadd_ps(av, b0, c30);
    c31 = _mm256_fmadd_ps(av, b1, c31);
    av = _mm256_broadcast_ss(a + 4);
    c40 = _mm256_fmadd_ps(av, b0, c40);
    c41 = _mm256_fmadd_ps(av, b1, c41);
    av = _mm256_broadcast_ss(a + 5);
    c50 = _mm256_fmadd_ps(av, b0, c50);
    c51 = _mm256_fmadd_ps(av, b1, c51);
  }
  alignas(32) float tile[MR * NR];
  const __m256 acc[MR * 2] = {c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51};
  for (int q = 0; q < MR * 2; q++) _mm256_store_ps(tile + q * 8, acc[q]);
  if (rows == MR && cols == NR) {
    for (int i = 0; i < MR; i++) {
      float* ci = c + i * ldc;
      __m256 lo = _mm256_load_ps(tile + i * NR), hi = _mm256_load_ps(tile + i * NR + 8);
      if (accumulate) {
        lo = _mm256_add_ps(lo, _mm256_loadu_ps(ci));
        hi = _mm256_add_ps(hi, _mm256_loadu_ps(ci + 8));
      }
      _mm256_storeu_ps(ci, lo);
      _mm256_storeu_ps(ci + 8, hi);
    }
    return;
  }
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.0f) + tile[i * NR + j];
}

struct Product {
  const float* a;
  const uint16_t* b;
  float* c;
  int m, n, k;
  bool ta, tb;
};

// Columns [j0, j0 + nt) of C for the k slice [p0, p0 + kc): packs that slice of B (widening it),
// then multiplies it by every block of the packed A slice.
template <bool F16>
void columns(const Product& g, const float* ap, int p0, int kc, int j0, int nt, std::vector<float>& bp) {
  bp.resize(static_cast<size_t>(kc) * ((nt + NR - 1) / NR) * NR);
  for (int jr = 0; jr < nt; jr += NR) {
    float* d = bp.data() + static_cast<size_t>(jr) * kc;
    if (g.tb) packBTrans<F16>(g.b, g.k, p0, kc, j0 + jr, std::min(NR, nt - jr), d);
    else packBPlain<F16>(g.b, g.n, p0, kc, j0 + jr, std::min(NR, nt - jr), d);
  }
  for (int ic = 0; ic < g.m; ic += MC) {
    const int ie = std::min(g.m, ic + MC);
    for (int jr = 0; jr < nt; jr += NR) {
      const float* bpanel = bp.data() + static_cast<size_t>(jr) * kc;
      for (int ir = ic; ir < ie; ir += MR)
        micro(kc, ap + static_cast<size_t>(ir) * kc, bpanel, g.c + static_cast<size_t>(ir) * g.n + j0 + jr, g.n, std::min(MR, g.m - ir),
              std::min(NR, nt - jr), p0 > 0);
    }
  }
}

// Floats of packed A held at once (16 MB): the k range whose slices are packed up front.
constexpr size_t kPackedAFloats = size_t(1) << 22;

// Packs A for k [k0, k0 + span) at once (threads splitting the slices), then one parallel pass
// in which each thread task runs every k slice for its columns: one wait a span, not one a
// slice, so a thread the OS deschedules on a busy machine holds the others up once.
template <bool F16>
void product(const Product& g) {
  const int mp = (g.m + MR - 1) / MR * MR;
  const int span = std::max(KC, static_cast<int>(kPackedAFloats / mp) / KC * KC);
  std::vector<float> ap(static_cast<size_t>(mp) * std::min(span, g.k));
  // Task width: at most NT, and small enough for 4 tasks a thread, so that on a busy machine a
  // descheduled thread's columns move to the others.
  const size_t want = static_cast<size_t>(poolThreads()) * 4;
  const int nt = std::max(NR, std::min(NT, static_cast<int>((g.n + want - 1) / want + NR - 1) / NR * NR));
  const size_t tasks = (g.n + nt - 1) / nt;
  for (int k0 = 0; k0 < g.k; k0 += span) {
    const int k1 = std::min(g.k, k0 + span);
    auto slice = [&](int p0) { return ap.data() + static_cast<size_t>(mp) * (p0 - k0); };
    parallelFor((k1 - k0 + KC - 1) / KC, 1, [&](size_t s, size_t e) {
      for (size_t q = s; q < e; q++) {
        const int p0 = k0 + static_cast<int>(q) * KC;
        packA(g.a, g.m, g.k, g.ta, p0, std::min(KC, k1 - p0), slice(p0));
      }
    });
    parallelFor(
        tasks, 1,
        [&](size_t s, size_t e) {
          thread_local std::vector<float> bp;
          for (size_t t = s; t < e; t++) {
            const int j0 = static_cast<int>(t) * nt;
            for (int p0 = k0; p0 < k1; p0 += KC) columns<F16>(g, slice(p0), p0, std::min(KC, k1 - p0), j0, std::min(nt, g.n - j0), bp);
          }
        },
        4);
  }
}

}  // namespace

std::string packedGemmUnavailable(Kind kind) { return gemvUnavailable(GemvPath::Avx2, kind); }

void gemmHalfPacked(const float* a, const uint16_t* b, Kind kind, float* c, int m, int n, int k, bool transA, bool transB) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    std::fill(c, c + static_cast<size_t>(m) * n, 0.0f);
    return;
  }
  const Product g{a, b, c, m, n, k, transA, transB};
  if (kind == Kind::F16) product<true>(g);
  else product<false>(g);
}

}  // namespace clawloop

#else  // no x86 kernels in this build

namespace clawloop {

std::string packedGemmUnavailable(Kind) { return "this addon was built without x86 kernels (an x86-64 GCC or clang build has them)"; }

void gemmHalfPacked(const float*, const uint16_t*, Kind, float*, int, int, int, bool, bool) {}

}  // namespace clawloop

#endif
