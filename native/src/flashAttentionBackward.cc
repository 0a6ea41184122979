#include <vector>

#include "flashAttention.h"
#include "flashAttentionTiles.h"
#include "threadPool.h"
#include "tileGemm.h"
#include "unaryKernels.h"

namespace clawloop {

namespace {

// One task's tiles (Br query rows, Bc keys, Dp padded head size) and its rows' Δ = dOut·out [G·T].
struct BackwardScratch {
  BackwardScratch(size_t Dp, size_t GT)
      : Qb(kAttnRows * Dp), dOb(kAttnRows * Dp), dQb(kAttnRows * Dp), KTt(Dp * kAttnKeys), Kt(kAttnKeys * Dp), Vt(kAttnKeys * Dp),
        VTt(Dp * kAttnKeys), P(kAttnRows * kAttnKeys), dS(kAttnRows * kAttnKeys), Tr(kAttnKeys * kAttnRows), dK(kAttnKeys * Dp),
        dV(kAttnKeys * Dp), delta(GT) {}
  std::vector<float> Qb, dOb, dQb, KTt, Kt, Vt, VTt, P, dS, Tr, dK, dV, delta;  // Tr: a transposed [Bc, Br] tile
  int64_t lo[kAttnRows], hi[kAttnRows];
  bool uniform[kAttnRows];
};

// P [Br, Bc] holds the scaled scores of a block against the tile; makes it the probabilities
// exp(score − lse) the forward pass normalised with (zero where a row does not see the slot).
void recomputeProbabilities(BackwardScratch& w, size_t n, int64_t s0, const float* lseRows) {
  for (size_t r = 0; r < kAttnRows; r++) {
    float* p = &w.P[r * kAttnKeys];
    for (size_t j = 0; j < kAttnKeys; j++) {
      const int64_t s = s0 + static_cast<int64_t>(j);
      const bool seen = r < n && s >= w.lo[r] && s <= w.hi[r];
      p[j] = seen ? expApprox((w.uniform[r] ? 0.0f : p[j]) - lseRows[r]) : 0.0f;
    }
  }
}

// One block of query rows (t0 .. t0+n of head h) against the key tile at s0: adds its share of
// dV and dK (the task's tile sums) and of dq (the block's own rows).
void backwardBlock(const AttentionDims& a, size_t b, size_t h, size_t t0, size_t n, int64_t s0, const float* q, const float* lse, const float* dOut,
                   float* dq, const float* delta, BackwardScratch& w) {
  const size_t D = a.D, Dp = paddedHeadDim(D), C = kAttnKeys;
  const size_t R = (n + 3) / 4 * 4;  // the block's rows as tileGemm takes them
  loadQueryBlock(q + (b * a.H + h) * a.T * D, D, Dp, t0, n, a.scale, w.Qb.data());
  std::fill(w.dOb.begin(), w.dOb.end(), 0.0f);
  for (size_t r = 0; r < n; r++)
    for (size_t d = 0; d < D; d++) w.dOb[r * Dp + d] = dOut[((b * a.T + t0 + r) * a.H + h) * D + d];
  std::fill(w.P.begin(), w.P.end(), 0.0f);
  tileGemm(R, C, Dp, w.Qb.data(), Dp, w.KTt.data(), C, w.P.data(), C);  // scale·Q·Kᵀ
  recomputeProbabilities(w, n, s0, lse + (b * a.H + h) * a.T + t0);
  tileTranspose(R, C, w.P.data(), C, w.Tr.data(), R);
  tileGemm(C, Dp, R, w.Tr.data(), R, w.dOb.data(), Dp, w.dV.data(), Dp);  // dV += Pᵀ·dO
  std::fill(w.dS.begin(), w.dS.end(), 0.0f);
  tileGemm(R, C, Dp, w.dOb.data(), Dp, w.VTt.data(), C, w.dS.data(), C);  // dP = dO·Vᵀ
  for (size_t r = 0; r < R; r++) {
    const float dr = r < n ? delta[t0 + r] : 0.0f;
    for (size_t j = 0; j < C; j++) w.dS[r * C + j] = w.P[r * C + j] * (w.dS[r * C + j] - dr);  // dS = P ⊙ (dP − Δ)
  }
  std::fill(w.dQb.begin(), w.dQb.end(), 0.0f);
  tileGemm(R, Dp, C, w.dS.data(), C, w.Kt.data(), Dp, w.dQb.data(), Dp);  // dS·K
  for (size_t r = 0; r < n; r++) {
    float* g = dq + ((b * a.H + h) * a.T + t0 + r) * D;
    for (size_t d = 0; d < D; d++) g[d] += a.scale * w.dQb[r * Dp + d];
  }
  tileTranspose(R, C, w.dS.data(), C, w.Tr.data(), R);
  tileGemm(C, Dp, R, w.Tr.data(), R, w.Qb.data(), Dp, w.dK.data(), Dp);  // dK += dSᵀ·(scale·Q)
}

// Δ [G·T] of KV head kv's query heads: dOut·out per row (Σ p·dP, the softmax gradient's shift).
void rowDeltas(const AttentionDims& a, size_t b, size_t kv, const float* out, const float* dOut, float* delta) {
  const size_t G = a.H / a.KVH, D = a.D;
  for (size_t g = 0; g < G; g++)
    for (size_t t = 0; t < a.T; t++) {
      const size_t at = ((b * a.T + t) * a.H + kv * G + g) * D;
      float s = 0;
      for (size_t d = 0; d < D; d++) s += dOut[at + d] * out[at + d];
      delta[g * a.T + t] = s;
    }
}

// Every key tile of KV head kv in row b against the query blocks of its G heads that see it.
void backwardHead(const AttentionDims& a, size_t b, size_t kv, const float* q, const float* kT, const float* v, const float* out, const float* lse,
                  const float* dOut, float* dq, float* dkT, float* dv, BackwardScratch& w) {
  const size_t G = a.H / a.KVH, D = a.D, Dp = paddedHeadDim(D);
  const size_t kvAt = (b * a.KVH + kv) * D * a.S;  // [D, S] of kT, [S, D] of v
  rowDeltas(a, b, kv, out, dOut, w.delta.data());
  std::fill_n(dq + (b * a.H + kv * G) * a.T * D, G * a.T * D, 0.0f);
  for (size_t s0 = 0; s0 < a.S; s0 += kAttnKeys) {
    loadKeyTile(kT + kvAt, D, a.S, Dp, s0, w.KTt.data());
    tileTranspose(Dp, kAttnKeys, w.KTt.data(), kAttnKeys, w.Kt.data(), Dp);
    loadValueTile(v + kvAt, D, a.S, Dp, s0, w.Vt.data());
    tileTranspose(kAttnKeys, Dp, w.Vt.data(), Dp, w.VTt.data(), kAttnKeys);
    std::fill(w.dK.begin(), w.dK.end(), 0.0f);
    std::fill(w.dV.begin(), w.dV.end(), 0.0f);
    for (size_t g = 0; g < G; g++)
      for (size_t t0 = 0; t0 < a.T; t0 += kAttnRows) {
        const size_t n = std::min(kAttnRows, a.T - t0);
        int64_t first, last;
        blockSlots(a, b, t0, n, w.lo, w.hi, w.uniform, &first, &last);
        if (last < static_cast<int64_t>(s0) || first >= static_cast<int64_t>(s0 + kAttnKeys)) continue;  // no row of the block sees the tile
        backwardBlock(a, b, kv * G + g, t0, n, s0, q, lse, dOut, dq, w.delta.data() + g * a.T, w);
      }
    for (size_t j = 0; j < std::min(kAttnKeys, a.S - s0); j++)
      for (size_t d = 0; d < D; d++) {
        dkT[kvAt + d * a.S + s0 + j] = w.dK[j * Dp + d];
        dv[kvAt + (s0 + j) * D + d] = w.dV[j * Dp + d];
      }
  }
}

}  // namespace

void flashAttentionBackward(const AttentionDims& a, const float* q, const float* kT, const float* v, const float* out, const float* lse,
                            const float* dOut, float* dq, float* dkT, float* dv) {
  parallelFor(a.B * a.KVH, 1, [&](size_t i0, size_t i1) {
    BackwardScratch w(paddedHeadDim(a.D), (a.H / a.KVH) * a.T);
    for (size_t i = i0; i < i1; i++) backwardHead(a, i / a.KVH, i % a.KVH, q, kT, v, out, lse, dOut, dq, dkT, dv, w);
  });
}

}  // namespace clawloop
