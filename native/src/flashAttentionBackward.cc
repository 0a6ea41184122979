#include <algorithm>
#include <vector>

#include "flashAttention.h"
#include "flashAttentionTiles.h"
#include "threadPool.h"
#include "tileGemm.h"
#include "unaryKernels.h"

namespace clawloop {

namespace {

// One thread's tiles (Br query rows, Bc keys, Dp padded head size).
struct BackwardScratch {
  explicit BackwardScratch(size_t Dp)
      : Qb(kAttnRows * Dp), dOb(kAttnRows * Dp), dQb(kAttnRows * Dp), KTt(Dp * kAttnKeys), Kt(kAttnKeys * Dp), Vt(kAttnKeys * Dp),
        VTt(Dp * kAttnKeys), P(kAttnRows * kAttnKeys), dS(kAttnRows * kAttnKeys), Tr(kAttnKeys * kAttnRows), dK(kAttnKeys * Dp),
        dV(kAttnKeys * Dp) {}
  std::vector<float> Qb, dOb, dQb, KTt, Kt, Vt, VTt, P, dS, Tr, dK, dV;  // Tr: a transposed [Bc, Br] tile
  int64_t lo[kAttnRows], hi[kAttnRows];
  bool uniform[kAttnRows];
};

// The tensors of one backward call, and Δ [B, H, T] = dOut·out per row (Σ p·dP, the softmax
// gradient's shift).
struct BackwardArgs {
  const AttentionDims& a;
  const float *q, *kT, *v, *lse, *dOut, *delta;
  float *dq, *dkT, *dv;
};

// P [Br, Bc] holds the scaled scores of a block against the tile; makes it the probabilities
// exp(score − lse) the forward pass normalised with (zero where a row does not see the slot).
void recomputeProbabilities(BackwardScratch& w, size_t n, int64_t s0, const float* lseRows) {
  for (size_t r = 0; r < kAttnRows; r++) {
    float* p = &w.P[r * kAttnKeys];
    // The slots the row sees in this tile: [j0, j1), branch-free below so that the loop vectorises.
    const int j0 = r < n ? static_cast<int>(std::max<int64_t>(w.lo[r] - s0, 0)) : 0;
    const int j1 = r < n ? static_cast<int>(std::min<int64_t>(w.hi[r] - s0 + 1, kAttnKeys)) : 0;
    const float keep = r < n && w.uniform[r] ? 0.0f : 1.0f, shift = r < n ? lseRows[r] : 0.0f;
    for (int j = 0; j < static_cast<int>(kAttnKeys); j++) p[j] = j >= j0 && j < j1 ? expApprox(keep * p[j] - shift) : 0.0f;
  }
}

// One block of query rows (t0 .. t0+n of head h, w.lo/hi/uniform set) against the key tile at s0
// (w.KTt, Kt, Vt, VTt loaded): adds its share of dV and dK (the tile's sums) and of dq.
void backwardBlock(const BackwardArgs& g, size_t b, size_t h, size_t t0, size_t n, int64_t s0, BackwardScratch& w) {
  const AttentionDims& a = g.a;
  const size_t D = a.D, Dp = paddedHeadDim(D), C = kAttnKeys, row0 = (b * a.H + h) * a.T + t0;
  const size_t R = (n + 3) / 4 * 4;  // the block's rows as tileGemm takes them
  loadQueryBlock(g.q + (b * a.H + h) * a.T * D, D, Dp, t0, n, a.scale, w.Qb.data());
  std::fill(w.dOb.begin(), w.dOb.end(), 0.0f);
  for (size_t r = 0; r < n; r++)
    for (size_t d = 0; d < D; d++) w.dOb[r * Dp + d] = g.dOut[((b * a.T + t0 + r) * a.H + h) * D + d];
  std::fill(w.P.begin(), w.P.end(), 0.0f);
  tileGemm(R, C, Dp, w.Qb.data(), Dp, w.KTt.data(), C, w.P.data(), C);  // scale·Q·Kᵀ
  recomputeProbabilities(w, n, s0, g.lse + row0);
  tileTranspose(R, C, w.P.data(), C, w.Tr.data(), R);
  tileGemm(C, Dp, R, w.Tr.data(), R, w.dOb.data(), Dp, w.dV.data(), Dp);  // dV += Pᵀ·dO
  std::fill(w.dS.begin(), w.dS.end(), 0.0f);
  tileGemm(R, C, Dp, w.dOb.data(), Dp, w.VTt.data(), C, w.dS.data(), C);  // dP = dO·Vᵀ
  for (size_t r = 0; r < R; r++) {
    const float dr = r < n ? g.delta[row0 + r] : 0.0f;
    for (size_t j = 0; j < C; j++) w.dS[r * C + j] = w.P[r * C + j] * (w.dS[r * C + j] - dr);  // dS = P ⊙ (dP − Δ)
  }
  std::fill(w.dQb.begin(), w.dQb.end(), 0.0f);
  tileGemm(R, Dp, C, w.dS.data(), C, w.Kt.data(), Dp, w.dQb.data(), Dp);  // dS·K
  for (size_t r = 0; r < n; r++)
    for (size_t d = 0; d < D; d++) g.dq[(row0 + r) * D + d] += a.scale * w.dQb[r * Dp + d];
  tileTranspose(R, C, w.dS.data(), C, w.Tr.data(), R);
  tileGemm(C, Dp, R, w.Tr.data(), R, w.Qb.data(), Dp, w.dK.data(), Dp);  // dK += dSᵀ·(scale·Q)
}

// Loads KV head kv's key and value tile at s0 in both layouts the products read.
void loadTile(const BackwardArgs& g, size_t kvAt, size_t s0, BackwardScratch& w) {
  const size_t D = g.a.D, S = g.a.S, Dp = paddedHeadDim(D);
  loadKeyTile(g.kT + kvAt, D, S, Dp, s0, w.KTt.data());
  tileTranspose(Dp, kAttnKeys, w.KTt.data(), kAttnKeys, w.Kt.data(), Dp);
  loadValueTile(g.v + kvAt, D, S, Dp, s0, w.Vt.data());
  tileTranspose(kAttnKeys, Dp, w.Vt.data(), Dp, w.VTt.data(), kAttnKeys);
}

// The key tile at s0 of KV head kv in row b against every query block of its G heads that sees
// it: writes the tile's dK and dV, and adds the blocks' shares of dq to g.dq.
void keyTile(const BackwardArgs& g, size_t b, size_t kv, size_t s0, BackwardScratch& w) {
  const AttentionDims& a = g.a;
  const size_t G = a.H / a.KVH, D = a.D, Dp = paddedHeadDim(D), kvAt = (b * a.KVH + kv) * D * a.S;  // [D, S] of kT, [S, D] of v
  loadTile(g, kvAt, s0, w);
  std::fill(w.dK.begin(), w.dK.end(), 0.0f);
  std::fill(w.dV.begin(), w.dV.end(), 0.0f);
  for (size_t t0 = 0; t0 < a.T; t0 += kAttnRows) {
    const size_t n = std::min(kAttnRows, a.T - t0);
    int64_t first, last;
    blockSlots(a, b, t0, n, w.lo, w.hi, w.uniform, &first, &last);
    if (last < static_cast<int64_t>(s0) || first >= static_cast<int64_t>(s0 + kAttnKeys)) continue;  // no row of the block sees the tile
    for (size_t h = kv * G; h < (kv + 1) * G; h++) backwardBlock(g, b, h, t0, n, s0, w);
  }
  for (size_t j = 0; j < std::min(kAttnKeys, a.S - s0); j++)
    for (size_t d = 0; d < D; d++) {
      g.dkT[kvAt + d * a.S + s0 + j] = w.dK[j * Dp + d];
      g.dv[kvAt + (s0 + j) * D + d] = w.dV[j * Dp + d];
    }
}

// Δ [B, H, T] = dOut·out per row.
void rowDeltas(const AttentionDims& a, const float* out, const float* dOut, float* delta) {
  parallelFor(a.B * a.H * a.T, 256, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; i++) {
      const size_t t = i % a.T, bh = i / a.T, at = ((bh / a.H * a.T + t) * a.H + bh % a.H) * a.D;
      float s = 0;
      for (size_t d = 0; d < a.D; d++) s += dOut[at + d] * out[at + d];
      delta[i] = s;
    }
  });
}

}  // namespace

void flashAttentionBackward(const AttentionDims& a, const float* q, const float* kT, const float* v, const float* out, const float* lse,
                            const float* dOut, float* dq, float* dkT, float* dv) {
  std::vector<float> delta(a.B * a.H * a.T);
  rowDeltas(a, out, dOut, delta.data());
  // A task per (row, KV head) owns that head's dK and dV; with fewer such pairs than threads each
  // is split R ways over its key tiles (every R-th tile, which evens out the causal cost), each
  // part adding its dq into a buffer of its own, summed at the end.
  const size_t pairs = a.B * a.KVH, tiles = (a.S + kAttnKeys - 1) / kAttnKeys, dqSize = a.B * a.H * a.T * a.D;
  const size_t R = std::min<size_t>({(static_cast<size_t>(poolThreads()) + pairs - 1) / pairs, tiles, 8});
  std::vector<float> parts(R > 1 ? (R - 1) * dqSize : 0, 0.0f);
  std::fill_n(dq, dqSize, 0.0f);
  parallelFor(pairs * R, 1, [&](size_t i0, size_t i1) {
    BackwardScratch w(paddedHeadDim(a.D));
    for (size_t i = i0; i < i1; i++) {
      const size_t pair = i / R, r = i % R;
      const BackwardArgs g{a, q, kT, v, lse, dOut, delta.data(), r == 0 ? dq : parts.data() + (r - 1) * dqSize, dkT, dv};
      for (size_t s0 = r * kAttnKeys; s0 < a.S; s0 += R * kAttnKeys) keyTile(g, pair / a.KVH, pair % a.KVH, s0, w);
    }
  });
  if (R > 1) {
    parallelFor(dqSize, 1 << 14, [&](size_t i0, size_t i1) {
      for (size_t r = 1; r < R; r++)
        for (size_t i = i0; i < i1; i++) dq[i] += parts[(r - 1) * dqSize + i];
    });
  }
}

}  // namespace clawloop
