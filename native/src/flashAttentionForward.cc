#include <cmath>
#include <vector>

#include "flashAttention.h"
#include "flashAttentionTiles.h"
#include "threadPool.h"
#include "tileGemm.h"
#include "unaryKernels.h"

namespace clawloop {

namespace {

// One thread's tiles: Qb [Br, Dp], KTt [Dp, Bc], Vt [Bc, Dp], P [Br, Bc], O [Br, Dp].
struct ForwardScratch {
  explicit ForwardScratch(size_t Dp)
      : Qb(kAttnRows * Dp), KTt(Dp * kAttnKeys), Vt(kAttnKeys * Dp), P(kAttnRows * kAttnKeys), O(kAttnRows * Dp) {}
  std::vector<float> Qb, KTt, Vt, P, O;
  int64_t lo[kAttnRows], hi[kAttnRows];
  bool uniform[kAttnRows];
  float m[kAttnRows], l[kAttnRows];
};

// One row's online-softmax step over a tile: scores p [Bc] (scaled) become exp(score − new max),
// zero where the row does not see the slot; returns the factor that rescales the row's earlier sums.
// Branch-free loops over the whole tile, with lane-wise max and sum, so that they vectorise.
float onlineSoftmaxRow(float* p, int64_t s0, int64_t lo, int64_t hi, bool uniform, float* m, float* l) {
  const int j0 = static_cast<int>(std::max<int64_t>(lo - s0, 0)), j1 = static_cast<int>(std::min<int64_t>(hi - s0 + 1, kAttnKeys));  // seen: [j0, j1)
  if (j0 >= j1) {
    std::fill_n(p, kAttnKeys, 0.0f);
    return 1.0f;
  }
  for (int j = 0; j < static_cast<int>(kAttnKeys); j++) p[j] = j >= j0 && j < j1 ? (uniform ? 0.0f : p[j]) : -INFINITY;
  const float mNew = std::max(*m, tileRowMax(p));
  const float corr = *m == -INFINITY ? 0.0f : expApprox(*m - mNew);
  for (int j = 0; j < static_cast<int>(kAttnKeys); j++) p[j] = j >= j0 && j < j1 ? expApprox(p[j] - mNew) : 0.0f;
  *l = *l * corr + tileRowSum(p);
  *m = mNew;
  return corr;
}

// Query rows t0 .. t0+n of head h in row b: every tile of slots they see, then out and lse.
void forwardBlock(const AttentionDims& a, size_t b, size_t h, size_t t0, size_t n, const float* q, const float* kT, const float* v, float* out,
                  float* lse, ForwardScratch& w) {
  const size_t D = a.D, Dp = paddedHeadDim(D), kv = h / (a.H / a.KVH);
  const size_t M = (n + 3) / 4 * 4;  // the block's rows as tileGemm takes them (a decoding step has one)
  const float* kTh = kT + (b * a.KVH + kv) * D * a.S;  // [D, S]
  const float* vh = v + (b * a.KVH + kv) * a.S * D;    // [S, D]
  loadQueryBlock(q + (b * a.H + h) * a.T * D, D, Dp, t0, n, a.scale, w.Qb.data());
  int64_t first, last;
  blockSlots(a, b, t0, n, w.lo, w.hi, w.uniform, &first, &last);
  std::fill(w.O.begin(), w.O.end(), 0.0f);
  std::fill_n(w.m, kAttnRows, -INFINITY);
  std::fill_n(w.l, kAttnRows, 0.0f);
  for (int64_t s0 = first; s0 <= last; s0 += kAttnKeys) {
    loadKeyTile(kTh, D, a.S, Dp, s0, w.KTt.data());
    loadValueTile(vh, D, a.S, Dp, s0, w.Vt.data());
    std::fill_n(w.P.begin(), M * kAttnKeys, 0.0f);
    tileGemm(M, kAttnKeys, Dp, w.Qb.data(), Dp, w.KTt.data(), kAttnKeys, w.P.data(), kAttnKeys);  // P = scale·Q·Kᵀ
    for (size_t r = 0; r < n; r++) {
      const float corr = onlineSoftmaxRow(&w.P[r * kAttnKeys], s0, w.lo[r], w.hi[r], w.uniform[r], &w.m[r], &w.l[r]);
      if (corr != 1.0f)
        for (size_t d = 0; d < Dp; d++) w.O[r * Dp + d] *= corr;
    }
    tileGemm(M, Dp, kAttnKeys, w.P.data(), kAttnKeys, w.Vt.data(), Dp, w.O.data(), Dp);  // O += P·V
  }
  for (size_t r = 0; r < n; r++) {
    const size_t t = t0 + r;
    const float inv = 1.0f / w.l[r];
    float* o = out + ((b * a.T + t) * a.H + h) * D;
    for (size_t d = 0; d < D; d++) o[d] = w.O[r * Dp + d] * inv;
    lse[(b * a.H + h) * a.T + t] = w.m[r] + std::log(w.l[r]);
  }
}

}  // namespace

void flashAttentionForward(const AttentionDims& a, const float* q, const float* kT, const float* v, float* out, float* lse) {
  const size_t blocks = (a.T + kAttnRows - 1) / kAttnRows;
  // Causal blocks differ in cost (a later block sees more slots): several chunks per thread even it out.
  parallelFor(
      a.B * a.H * blocks, 1,
      [&](size_t i0, size_t i1) {
        ForwardScratch w(paddedHeadDim(a.D));
        for (size_t i = i0; i < i1; i++) {
          const size_t bh = i / blocks, t0 = (i % blocks) * kAttnRows;
          forwardBlock(a, bh / a.H, bh % a.H, t0, std::min(kAttnRows, a.T - t0), q, kT, v, out, lse, w);
        }
      },
      8);
}

}  // namespace clawloop
